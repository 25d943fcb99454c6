package io.playline.gateway;

import static io.playline.gateway.HandshakeTimeoutTest.closedByServer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code admin.max.connections.per.address}: one address holding slow admin requests cannot take every
 * admin connection; another address (a scraper) is still served.
 */
@ExtendWith(RealRedisExtension.class)
class AdminAddressBudgetTest {
  static TestGateway gateway;

  @BeforeAll
  static void start(RedisNamespace ns) {
    gateway = new TestGateway(ns, Map.of("admin.max.connections", "8", "admin.max.connections.per.address", "2",
        "admin.request.timeout", "1m"));
  }

  @AfterAll
  static void stop() {
    gateway.close();
  }

  private static Socket from(String local) throws Exception {
    Socket s = new Socket();
    s.bind(new InetSocketAddress(InetAddress.getByName(local), 0));
    s.connect(new InetSocketAddress("127.0.0.1", gateway.node.adminAddress().getPort()), 5_000);
    return s;
  }

  private static String livez(Socket s) throws Exception {
    s.getOutputStream().write("GET /livez HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    return new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
  }

  @Test
  void oneAddressGetsItsShareAndAnotherIsStillServed() throws Exception {
    double before = gateway.counter("playline.admin.refused", "reason", "address");
    try (Socket slow1 = from("127.0.0.71"); Socket slow2 = from("127.0.0.71")) {
      // Each is counted once it was answered; then it trickles a request that never ends.
      for (Socket s : new Socket[] {slow1, slow2}) {
        assertThat(livez(s)).isEqualTo("HTTP/1.1 200");
        s.getOutputStream().write("GET /metrics HTTP/1.1\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
      }
      try (Socket over = from("127.0.0.71")) {
        await().atMost(Duration.ofSeconds(5)).until(() -> closedByServer(over));
      }
      assertThat(gateway.counter("playline.admin.refused", "reason", "address") - before).isEqualTo(1);
      assertThat(closedByServer(slow1)).isFalse();
      assertThat(closedByServer(slow2)).isFalse();
      try (Socket scraper = from("127.0.0.72")) {
        assertThat(livez(scraper)).isEqualTo("HTTP/1.1 200");
      }
    }
  }
}
