package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.testing.Frames;
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
 * did finish it are unaffected.
 */
@ExtendWith(RealRedisExtension.class)
class HandshakeTimeoutTest {
  static TestGateway gateway;

  @BeforeAll
  static void start(RedisNamespace ns) {
    gateway = new TestGateway(ns, Map.of("handshake.timeout", "1s", "auth.timeout", "30s"));
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
      await().atMost(Duration.ofSeconds(10)).until(() -> closedByServer(silent));
      await().atMost(Duration.ofSeconds(10)).until(() -> closedByServer(half));
    }
    assertThat(timeouts() - before).isEqualTo(2);
  }

  @Test
  void aGrpcPortSocketThatNeverSendsThePrefaceIsClosed() throws Exception {
    try (Socket silent = new Socket("127.0.0.1", gateway.server.grpcAddress().getPort())) {
      await().atMost(Duration.ofSeconds(10)).until(() -> closedByServer(silent));
    }
  }

  @Test
  void anUpgradedConnectionOutlivesTheDeadline() throws Exception {
    long connecting = System.nanoTime();
    try (WsPlayerClient player = WsPlayerClient.connect(gateway.server.wsAddress().getPort());
        Socket silent = new Socket("127.0.0.1", gateway.server.wsAddress().getPort())) {
      await().atMost(Duration.ofSeconds(10)).until(() -> closedByServer(silent));
      // Deadlines fall anywhere in the setting's last quarter: the player's own has passed once the
      // whole setting has since it connected.
      long passed = connecting + Duration.ofSeconds(1).plusMillis(200).toNanos();
      await().atMost(Duration.ofSeconds(10)).until(() -> System.nanoTime() - passed > 0);
      player.send(Frames.auth(1, TestGateway.token(42)));
      assertThat(player.next().hasAuthOk()).isTrue();
      player.send(Frames.keepAlive(2));
      assertThat(player.next().getSeq()).isEqualTo(2);
    }
  }
}
