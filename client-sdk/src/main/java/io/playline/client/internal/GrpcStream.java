package io.playline.client.internal;

import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.netty.channel.EventLoop;
import io.playline.proto.lite.v1.ClientFrame;
import io.playline.proto.lite.v1.ServerFrame;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One {@code Gateway/Connect} call as a {@link Transport.Connection}: each stream message is one
 * frame. Closing half-closes the call (the gateway then ends it with OK) and cancels it if the
 * gateway has not ended it within {@value #FORCE_CLOSE_MS} ms. When the call ends, its channel is
 * released and the listener hears {@code onClosed} exactly once.
 *
 * <p>Confined to the client's loop: the channel's executor is that loop, so gRPC calls back there.
 */
final class GrpcStream implements ClientResponseObserver<ClientFrame, ServerFrame>, Transport.Connection {
  static final long FORCE_CLOSE_MS = 1_000;

  private final Transport.Listener listener;
  private final EventLoop loop;
  private final Runnable release;
  private @Nullable ClientCallStreamObserver<ClientFrame> requests;
  private boolean halfClosed;
  private boolean ended;

  GrpcStream(Transport.Listener listener, EventLoop loop, Runnable release) {
    this.listener = listener;
    this.loop = loop;
    this.release = release;
  }

  @Override
  public void beforeStart(ClientCallStreamObserver<ClientFrame> requestStream) {
    this.requests = requestStream;
  }

  /** The call is started: frames may be sent. */
  void started() {
    if (!ended) {
      listener.onOpen();
    }
  }

  @Override
  public void onNext(ServerFrame frame) {
    if (!ended) {
      listener.onFrame(frame);
    }
  }

  @Override
  public void onError(Throwable t) {
    end(t);
  }

  @Override
  public void onCompleted() {
    end(null);
  }

  private void end(@Nullable Throwable cause) {
    if (ended) {
      return;
    }
    ended = true;
    release.run();
    listener.onClosed(cause);
  }

  @Override
  public void send(ClientFrame frame) {
    ClientCallStreamObserver<ClientFrame> r = requests;
    if (r != null && !ended && !halfClosed) {
      r.onNext(frame);
    }
  }

  @Override
  public boolean isWritable() {
    ClientCallStreamObserver<ClientFrame> r = requests;
    return r != null && r.isReady();
  }

  @Override
  public void close() {
    ClientCallStreamObserver<ClientFrame> r = requests;
    if (r == null || ended || halfClosed) {
      return;
    }
    halfClosed = true;
    r.onCompleted();
    loop.schedule(() -> {
      if (!ended) {
        r.cancel("closed by the client", null);
      }
    }, FORCE_CLOSE_MS, TimeUnit.MILLISECONDS);
  }
}
