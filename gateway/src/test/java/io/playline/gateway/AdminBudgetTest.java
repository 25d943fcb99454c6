package io.playline.gateway;

import static io.playline.gateway.HandshakeTimeoutTest.closedByServer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The admin port's budgets: admin.request.timeout against a slowloris, admin.max.connections. */
@ExtendWith(RealRedisExtension.class)
class AdminBudgetTest {
  static TestGateway gateway;

  @BeforeAll
  static void start(RedisNamespace ns) {
    gateway = new TestGateway(ns, Map.of("admin.request.timeout", "2s", "admin.max.connections", "2"));
  }

  @AfterAll
  static void stop() {
    gateway.close();
  }

  private static Socket admin() throws Exception {
    return new Socket("127.0.0.1", gateway.node.adminAddress().getPort());
  }

  private static double refused(String reason) {
    return gateway.counter("playline.admin.refused", "reason", reason);
  }

  @Test
  void aSlowlorisTricklingHeaderBytesIsClosedAfterTheRequestDeadline() throws Exception {
    double before = refused("timeout");
    try (Socket slow = admin()) {
      OutputStream out = slow.getOutputStream();
      out.write("GET /metrics HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
      // A header byte every poll (100 ms) would keep an idle timer from ever firing.
      await().atMost(Duration.ofSeconds(5)).until(() -> {
        try {
          out.write('X');
          out.flush();
        } catch (java.io.IOException e) {
          return true; // reset by the server
        }
        return closedByServer(slow);
      });
    }
    assertThat(refused("timeout") - before).isEqualTo(1);
  }

  @Test
  void connectionsOverTheCapAreClosedAtAcceptAndTheOthersServed() throws Exception {
    double before = refused("connections");
    try (Socket first = admin(); Socket second = admin()) {
      // Both sent a request: both are counted and kept (keep-alive) while the third comes.
      for (Socket s : new Socket[] {first, second}) {
        s.getOutputStream().write("GET /livez HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
      }
      try (Socket third = admin()) {
        await().atMost(Duration.ofSeconds(5)).until(() -> closedByServer(third));
      }
      assertThat(refused("connections") - before).isEqualTo(1);
    }
  }
}
