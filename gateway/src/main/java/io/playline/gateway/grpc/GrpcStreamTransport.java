package io.playline.gateway.grpc;

import io.grpc.stub.ServerCallStreamObserver;
import io.netty.util.concurrent.EventExecutor;
import io.playline.gateway.session.Errors;
import io.playline.proto.v1.Error;
import io.playline.proto.v1.ServerFrame;

/**
 * A {@code Gateway/Connect} stream as a {@link io.playline.gateway.session.StreamTransport}.
 * Confined to the event loop chosen for the stream; the gRPC observer is only touched there.
 */
final class GrpcStreamTransport implements io.playline.gateway.session.StreamTransport {
  private final ServerCallStreamObserver<ServerFrame> observer;
  private final EventExecutor executor;
  private final String remoteAddress;
  private boolean closed;

  GrpcStreamTransport(ServerCallStreamObserver<ServerFrame> observer, EventExecutor executor, String remoteAddress) {
    this.observer = observer;
    this.executor = executor;
    this.remoteAddress = remoteAddress;
  }

  @Override
  public EventExecutor executor() {
    return executor;
  }

  @Override
  public void send(ServerFrame frame) {
    if (!closed && !observer.isCancelled()) {
      observer.onNext(frame);
    }
  }

  @Override
  public boolean isWritable() {
    return observer.isReady();
  }

  @Override
  public void closeWithError(long seq, Error error) {
    if (closed) {
      return;
    }
    closed = true;
    if (observer.isCancelled()) {
      return;
    }
    observer.onNext(Errors.frame(seq, error));
    observer.onError(StatusMapper.toStatus(error).asRuntimeException());
  }

  /** The client went away or half-closed; nothing more may be written. */
  void markClosed(boolean completeNormally) {
    if (!closed) {
      closed = true;
      if (completeNormally && !observer.isCancelled()) {
        observer.onCompleted();
      }
    }
  }

  @Override
  public String remoteAddress() {
    return remoteAddress;
  }

}
