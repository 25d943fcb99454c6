package io.playline.testing;

import com.google.protobuf.InvalidProtocolBufferException;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.ServerFrame;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A real WebSocket client (the JDK's) speaking the player protocol, for tests: one binary frame
 * per {@code ClientFrame}; received {@code ServerFrame}s queue up for {@link #next()}.
 */
public final class WsPlayerClient implements AutoCloseable {
  /** How the server closed the connection. */
  public record Close(int code, String reason) {}

  private final BlockingQueue<ServerFrame> frames = new LinkedBlockingQueue<>();
  public final CompletableFuture<Close> closed = new CompletableFuture<>();
  private final WebSocket ws;

  private WsPlayerClient(URI uri) {
    this(uri, HttpClient.newHttpClient());
  }

  private WsPlayerClient(URI uri, HttpClient http) {
    ws = http.newWebSocketBuilder()
        .connectTimeout(Duration.ofSeconds(5))
        .buildAsync(uri, new Listener())
        .join();
  }

  /** Connects to {@code ws://127.0.0.1:<port>/v1/stream}. */
  public static WsPlayerClient connect(int port) {
    return new WsPlayerClient(URI.create("ws://127.0.0.1:" + port + "/v1/stream"));
  }

  /**
   * Connects to {@code wss://localhost:<port>/v1/stream}, trusting what {@code ssl} trusts (the
   * server's certificate must name localhost). Fails (CompletionException) when the handshake does.
   */
  public static WsPlayerClient connectTls(int port, javax.net.ssl.SSLContext ssl) {
    return new WsPlayerClient(URI.create("wss://localhost:" + port + "/v1/stream"),
        HttpClient.newBuilder().sslContext(ssl).build());
  }

  public void send(ClientFrame frame) {
    sendBytes(frame.toByteArray());
  }

  public void sendBytes(byte[] bytes) {
    ws.sendBinary(ByteBuffer.wrap(bytes), true).join();
  }

  public void sendText(String text) {
    ws.sendText(text, true).join();
  }

  /** The next frame from the server, failing after 10 s. */
  public ServerFrame next() throws InterruptedException {
    ServerFrame f = frames.poll(10, TimeUnit.SECONDS);
    if (f == null) {
      throw new AssertionError("no frame from the server within 10 s");
    }
    return f;
  }

  /** The next frame, or null if none arrives within {@code millis}. */
  public @Nullable ServerFrame poll(long millis) throws InterruptedException {
    return frames.poll(millis, TimeUnit.MILLISECONDS);
  }

  public Close awaitClose() throws Exception {
    return closed.get(15, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    ws.abort();
  }

  private final class Listener implements WebSocket.Listener {
    private final ByteArrayOutputStream partial = new ByteArrayOutputStream();

    @Override
    public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
      byte[] chunk = new byte[data.remaining()];
      data.get(chunk);
      partial.writeBytes(chunk);
      if (last) {
        try {
          frames.add(ServerFrame.parseFrom(partial.toByteArray()));
        } catch (InvalidProtocolBufferException e) {
          closed.completeExceptionally(e);
        }
        partial.reset();
      }
      webSocket.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
      closed.complete(new Close(statusCode, reason));
      return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
      closed.completeExceptionally(error);
    }
  }
}
