package io.playline.gateway;

import static io.playline.gateway.HandshakeTimeoutTest.closedByServer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The admin port's budgets: admin.request.timeout against a slowloris; admin.max.connections, which
 * strangers cannot fill against the probes (an idle connection that proved no token gives way).
 */
@ExtendWith(RealRedisExtension.class)
class AdminBudgetTest {
  static TestGateway gateway;
  static RedisNamespace namespace;

  @BeforeAll
  static void start(RedisNamespace ns) {
    namespace = ns;
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

  /** A keep-alive connection from {@code from} that asked {@code path} and read its whole answer. */
  static Socket asked(int port, String from, String path, String authorization) throws Exception {
    Socket s = new Socket(InetAddress.getByName("127.0.0.1"), port, InetAddress.getByName(from), 0);
    s.setSoTimeout(10_000);
    assertThat(ask(s, path, authorization)).startsWith("HTTP/1.1 ");
    return s;
  }

  /** Sends GET {@code path} on {@code s} and reads the whole answer; returns its head. */
  static String ask(Socket s, String path, String authorization) throws Exception {
    s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: x\r\n" + authorization + "\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = s.getInputStream().read();
      if (b < 0) {
        return head.toString();
      }
      head.append((char) b);
    }
    java.util.regex.Matcher length = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
    if (length.find()) {
      s.getInputStream().readNBytes(Integer.parseInt(length.group(1)));
    }
    return head.toString();
  }

  @Test
  void strangersHoldingEveryConnectionCannotKeepTheProbesOut() throws Exception {
    int port = gateway.node.adminAddress().getPort();
    double evictedBefore = refused("evicted");
    List<Socket> strangers = new ArrayList<>();
    try {
      for (int probe = 0; probe < 5; probe++) {
        // Strangers from other addresses take every connection there is, keep-alive, asking /livez.
        strangers.add(asked(port, "127.0.0." + (2 + probe % 2), "/livez", ""));
        strangers.add(asked(port, "127.0.0." + (3 - probe % 2), "/livez", ""));
        try (Socket readyz = asked(port, "127.0.0.1", "/readyz", "")) {
          assertThat(readyz.isClosed()).isFalse(); // answered: asked() read its status line
        }
      }
    } finally {
      for (Socket s : strangers) {
        s.close();
      }
    }
    assertThat(refused("evicted") - evictedBefore).isGreaterThanOrEqualTo(5);
  }

  @Test
  void aNewcomerTakesThePlaceOfTheAddressHoldingMostNotOfAProbeThatHasNotAskedYet() throws Exception {
    TestGateway four = new TestGateway(namespace, Map.of("admin.max.connections", "4"));
    List<Socket> strangers = new ArrayList<>();
    try (Socket probe = new Socket(InetAddress.getByName("127.0.0.1"), four.node.adminAddress().getPort())) {
      int port = four.node.adminAddress().getPort();
      probe.setSoTimeout(10_000);
      // The probe connected first and has not asked yet: the least recently active connection.
      for (int i = 0; i < 3; i++) {
        strangers.add(asked(port, "127.0.0.2", "/livez", ""));
      }
      strangers.add(asked(port, "127.0.0.2", "/livez", ""));
      assertThat(four.counter("playline.admin.refused", "reason", "evicted")).isEqualTo(1);
      assertThat(ask(probe, "/readyz", "")).as("the probe kept its connection").startsWith("HTTP/1.1 ");
      await().atMost(Duration.ofSeconds(5)).until(() -> closedByServer(strangers.get(0)));
    } finally {
      for (Socket s : strangers) {
        s.close();
      }
      four.close();
    }
  }

  @Test
  void aConnectionOverTheCapIsRefusedOnlyWhenNoIdleStrangerCanGiveWay() throws Exception {
    TestGateway withToken = new TestGateway(namespace, Map.of("admin.max.connections", "2",
        "admin.token", "scrape-token-0123456789abcdef"));
    try {
      int port = withToken.node.adminAddress().getPort();
      double before = withToken.counter("playline.admin.refused", "reason", "connections");
      String bearer = "Authorization: Bearer scrape-token-0123456789abcdef\r\n";
      try (Socket first = asked(port, "127.0.0.1", "/metrics", bearer);
          Socket second = asked(port, "127.0.0.2", "/metrics", bearer);
          Socket third = new Socket("127.0.0.1", port)) {
        await().atMost(Duration.ofSeconds(5)).until(() -> closedByServer(third));
        assertThat(withToken.counter("playline.admin.refused", "reason", "connections") - before).isEqualTo(1);
        // The scrapers that proved the token keep their connections.
        for (Socket s : new Socket[] {first, second}) {
          assertThat(ask(s, "/livez", "")).startsWith("HTTP/1.1 200");
        }
      }
    } finally {
      withToken.close();
    }
  }
}
