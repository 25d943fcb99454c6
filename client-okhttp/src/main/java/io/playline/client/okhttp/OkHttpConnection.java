package io.playline.client.okhttp;

import com.google.protobuf.InvalidProtocolBufferException;
import io.playline.client.PlaylineException;
import io.playline.client.internal.ClientLog;
import io.playline.client.internal.CloseCodes;
import io.playline.client.internal.ConnectionEnd;
import io.playline.client.internal.Loop;
import io.playline.client.internal.Transport;
import io.playline.proto.lite.v1.ClientFrame;
import io.playline.proto.lite.v1.Error.Code;
import io.playline.proto.lite.v1.ServerFrame;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import okhttp3.Response;
import okhttp3.WebSocket;
import okhttp3.WebSocketListener;
import okio.ByteString;
import org.jspecify.annotations.Nullable;

/**
 * One OkHttp WebSocket as a {@link Transport.Connection}: each binary message from the gateway is
 * one {@code ServerFrame}, each {@code ClientFrame} goes out as one binary message, a close frame
 * becomes the failure {@link CloseCodes} says it is. Closing sends a close frame and cancels the
 * socket if the gateway has not ended it within {@value #FORCE_CLOSE_MS} ms; closing before the
 * upgrade cancels at once. Tells its listener {@code onClosed} exactly once.
 *
 * <p>Confined to the client's loop: OkHttp calls {@link #socketListener()} on its own threads, in
 * order, and each call hops onto the loop (dropped once the loop is gone).
 */
final class OkHttpConnection implements Transport.Connection {
  private static final ClientLog log = ClientLog.of(OkHttpConnection.class);
  static final long FORCE_CLOSE_MS = 1_000;
  /** Bytes queued in OkHttp beyond which the connection is not writable (Netty's default high-water mark). */
  static final long MAX_QUEUED_BYTES = 64 * 1024;
  private static final int NORMAL_CLOSURE = 1000;

  private final Transport.Listener listener;
  private final Loop loop;
  private final Consumer<OkHttpConnection> release;
  private @Nullable WebSocket socket;
  private boolean open;
  private boolean closing;
  private final ConnectionEnd ending;

  OkHttpConnection(Transport.Listener listener, Loop loop, Consumer<OkHttpConnection> release) {
    this.listener = listener;
    this.loop = loop;
    this.release = release;
    this.ending = new ConnectionEnd(listener);
  }

  void attach(WebSocket ws) {
    socket = ws;
  }

  /** What OkHttp calls, on its threads: each event is handed to the loop. */
  WebSocketListener socketListener() {
    return new WebSocketListener() {
      @Override
      public void onOpen(WebSocket ws, Response response) {
        hop(OkHttpConnection.this::opened);
      }

      @Override
      public void onMessage(WebSocket ws, ByteString bytes) {
        byte[] frame = bytes.toByteArray();
        hop(() -> message(frame));
      }

      @Override
      public void onMessage(WebSocket ws, String text) {
        log.debug("Ignoring a text message from the gateway");
      }

      @Override
      public void onClosing(WebSocket ws, int code, String reason) {
        hop(() -> closedByGateway(code, reason));
      }

      @Override
      public void onClosed(WebSocket ws, int code, String reason) {
        hop(() -> end(null));
      }

      @Override
      public void onFailure(WebSocket ws, Throwable t, @Nullable Response response) {
        hop(() -> end(t));
      }
    };
  }

  private void hop(Runnable task) {
    try {
      loop.execute(task);
    } catch (RejectedExecutionException e) {
      log.debug("Client loop gone; dropping a WebSocket event");
    }
  }

  private void opened() {
    open = true;
    if (!closing && !ending.ended()) {
      listener.onOpen();
    }
  }

  private void message(byte[] bytes) {
    if (ending.ended()) {
      return;
    }
    ServerFrame frame;
    try {
      frame = ServerFrame.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      ending.remember(new PlaylineException(Code.INTERNAL, "malformed frame from the gateway"));
      cancel();
      return;
    }
    listener.onFrame(frame);
  }

  private void closedByGateway(int code, String reason) {
    ending.remember(CloseCodes.closeCause(code, reason));
    closing = true;
    WebSocket ws = socket;
    if (ws != null) {
      ws.close(NORMAL_CLOSURE, null);
    }
  }

  private void end(@Nullable Throwable t) {
    if (!ending.ended()) {
      release.accept(this);
      ending.end(t);
    }
  }

  @Override
  public void send(ClientFrame frame) {
    WebSocket ws = socket;
    if (ws != null && open && !closing && !ending.ended()) {
      ws.send(ByteString.of(frame.toByteArray()));
    }
  }

  @Override
  public boolean isWritable() {
    WebSocket ws = socket;
    return ws != null && open && ws.queueSize() < MAX_QUEUED_BYTES;
  }

  @Override
  public void close() {
    WebSocket ws = socket;
    if (ws == null || closing || ending.ended()) {
      return;
    }
    closing = true;
    if (!open) {
      ws.cancel();
      return;
    }
    ws.close(NORMAL_CLOSURE, null);
    loop.schedule(() -> {
      if (!ending.ended()) {
        ws.cancel();
      }
    }, FORCE_CLOSE_MS);
  }

  /** Drops the socket at once (no close frame); {@code onFailure}, hence {@code onClosed}, follows. Thread-safe. */
  void cancel() {
    WebSocket ws = socket;
    if (ws != null) {
      ws.cancel();
    }
  }
}
