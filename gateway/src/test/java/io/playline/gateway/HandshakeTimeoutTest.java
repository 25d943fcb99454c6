package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.testing.Frames;
import io.playline.testing.ManualTime;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Sockets that never finish their WebSocket upgrade or HTTP/2 handshake are closed after {@code
 * handshake.timeout}, so they cannot hold file descriptors and channels forever; connections that
 * did finish it are unaffected. The WebSocket port's deadlines run on a {@link ManualTime}: each
 * check moves it a deadline further, so no test waits for one to pass.
 */
@ExtendWith(RealRedisExtension.class)
class HandshakeTimeoutTest {
  static TestGateway gateway;
  static final ManualTime time = new ManualTime();

  @BeforeAll
  static void start(RedisNamespace ns) {
    gateway = new TestGateway(ns, Map.of("handshake.timeout", "1s", "auth.timeout", "300s"), time);
  }

  /**
   * Moves time one handshake timeout on, then tells whether the server closed {@code socket}: a
   * condition to wait on, so a deadline scheduled after one move (its accept came late) is crossed
   * by the next.
   */
  static boolean closedAfterADeadline(Socket socket) throws IOException {
    time.advance(Duration.ofSeconds(1));
    return closedByServer(socket);
  }

  @AfterAll
  static void stop() {
    gateway.close();
  }

  /** True once the server closed {@code socket} (end of stream or reset), reading whatever it sent first. */
  static boolean closedByServer(Socket socket) throws IOException {
    socket.setSoTimeout(100);
    InputStream in = socket.getInputStream();
    try {
      while (true) {
        if (in.read() < 0) {
          return true;
        }
      }
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset by the server
    }
  }

  private static double timeouts() {
    return gateway.registry.get("playline.connections.handshake.timeouts").counter().count();
  }

  @Test
  void aWebSocketPortSocketThatSendsNothingOrHalfARequestIsClosed() throws Exception {
    double before = timeouts();
    try (Socket silent = new Socket("127.0.0.1", gateway.server.wsAddress().getPort());
        Socket half = new Socket("127.0.0.1", gateway.server.wsAddress().getPort())) {
      half.getOutputStream().write("GET /v1/stream HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
      await().atMost(Duration.ofSeconds(10)).until(() -> closedAfterADeadline(silent));
      await().atMost(Duration.ofSeconds(10)).until(() -> closedAfterADeadline(half));
    }
    assertThat(timeouts() - before).isEqualTo(2);
  }

  @Test
  void aGrpcPortSocketThatNeverSendsThePrefaceIsClosed() throws Exception {
    // The gRPC port's deadline is still on the machine's clock: this one waits for it.
    try (Socket silent = new Socket("127.0.0.1", gateway.server.grpcAddress().getPort())) {
      await().atMost(Duration.ofSeconds(10)).until(() -> closedByServer(silent));
    }
  }

  @Test
  void anUpgradedConnectionOutlivesTheDeadline() throws Exception {
    try (WsPlayerClient player = WsPlayerClient.connect(gateway.server.wsAddress().getPort());
        Socket silent = new Socket("127.0.0.1", gateway.server.wsAddress().getPort())) {
      // The player's deadline was scheduled before the silent socket's: it has passed once that one has.
      await().atMost(Duration.ofSeconds(10)).until(() -> closedAfterADeadline(silent));
      player.send(Frames.auth(1, TestGateway.token(42)));
      assertThat(player.next().hasAuthOk()).isTrue();
      player.send(Frames.keepAlive(2));
      assertThat(player.next().getSeq()).isEqualTo(2);
    }
  }
}
