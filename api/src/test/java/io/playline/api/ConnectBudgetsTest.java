package io.playline.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RedisNamespace;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Connect port's budgets on a real api node: body size, request deadline, connections and
 * pipelined requests, per address too, so that strangers without a credential cannot keep a
 * backend out — with raw sockets from several loopback addresses.
 */
class ConnectBudgetsTest extends AbstractConnectApiTest {
  @Test
  void thePortsBudgetsHold(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) throws Exception {
    start(redis, kafka, hbase, Map.of("frame.max.bytes", "4096", "api.http.max.connections", "3",
        "api.http.request.timeout", "3s", "api.http.max.pipelined", "2"));
    // Too large: resource_exhausted, then closed.
    HttpResponse<String> large = json("GetPaused", "{\"uid\":\"1\",\"pad\":\"" + "x".repeat(5000) + "\"}");
    assertThat(large.statusCode()).isEqualTo(429);
    assertThat(large.body()).contains("resource_exhausted", "larger than 4096 bytes");

    // A slowloris trickling its headers is cut at the request deadline.
    try (Socket slow = new Socket("127.0.0.1", port())) {
      slow.getOutputStream().write("POST /playline.v1.History/GetPaused HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
      slow.setSoTimeout(10_000);
      assertThat(slow.getInputStream().read()).as("closed without an answer").isEqualTo(-1);
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> refused("timeout") >= 1);

    // Two requests ahead of their answers are answered in order; a third ahead closes the connection.
    String getPaused = "POST /playline.v1.History/GetPaused HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + "Authorization: " + TestApi.bearer() + "\r\nContent-Length: 12\r\n\r\n{\"uid\":\"42\"}";
    // Each connection below waits for the last one's close to be seen, so that none is refused for the
    // port's cap of 3 instead of for what it tests.
    await().atMost(Duration.ofSeconds(10)).until(() -> openConnections() == 0);
    try (Socket two = new Socket("127.0.0.1", port())) {
      two.setSoTimeout(10_000);
      two.getOutputStream().write((getPaused + getPaused).getBytes(StandardCharsets.US_ASCII));
      String answers = readAtLeast(two.getInputStream(), 2);
      assertThat(answers).startsWith("HTTP/1.1 200 OK");
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> openConnections() == 0);
    try (Socket three = new Socket("127.0.0.1", port())) {
      three.setSoTimeout(10_000);
      three.getOutputStream().write((getPaused + getPaused + getPaused).getBytes(StandardCharsets.US_ASCII));
      InputStream in = three.getInputStream();
      while (in.read() != -1) {
        // whatever was answered before the close
      }
    }
    assertThat(refused("pipelined")).isEqualTo(1);
    assertThat(refused("connections")).isZero();

    // More connections than api.http.max.connections, every one of them a backend's (a request with a
    // valid token answered): the extra one is closed at accept.
    await().atMost(Duration.ofSeconds(10)).until(() -> openConnections() == 0);
    try (Socket a = new Socket("127.0.0.1", port()); Socket b = new Socket("127.0.0.1", port());
        Socket c = new Socket("127.0.0.1", port())) {
      await().atMost(Duration.ofSeconds(5)).until(() -> openConnections() == 3);
      for (Socket backend : new Socket[] {a, b, c}) {
        backend.getOutputStream().write(getPaused.getBytes(StandardCharsets.US_ASCII));
        backend.setSoTimeout(10_000);
        assertThat(readAtLeast(backend.getInputStream(), 1)).startsWith("HTTP/1.1 200 OK");
      }
      try (Socket d = new Socket("127.0.0.1", port())) {
        d.setSoTimeout(10_000);
        assertThat(d.getInputStream().read()).isEqualTo(-1);
      }
      assertThat(refused("connections")).isEqualTo(1);
      // The three admitted ones are still served.
      for (Socket admitted : new Socket[] {a, b, c}) {
        OutputStream out = admitted.getOutputStream();
        out.write(getPaused.getBytes(StandardCharsets.US_ASCII));
        admitted.setSoTimeout(10_000);
        assertThat(readAtLeast(admitted.getInputStream(), 1)).startsWith("HTTP/1.1 200 OK");
      }
    }
  }

  @Test
  void strangersWithoutACredentialCannotKeepABackendOut(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase) throws Exception {
    start(redis, kafka, hbase, Map.of("api.http.max.connections", "4", "api.http.max.connections.per.address", "2",
        "api.http.request.timeout", "1m"));
    String noCredential = "POST " + HISTORY + "GetPaused HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + "Content-Length: 12\r\n\r\n{\"uid\":\"42\"}";
    List<Socket> strangers = new ArrayList<>();
    try {
      for (int round = 0; round < 5; round++) {
        // Each round begins with the strangers the last backend left (it took one stranger's place, then left).
        int left = round == 0 ? 0 : 3;
        await().atMost(Duration.ofSeconds(10)).until(() -> openConnections() == left);
        // A stranger asking without a credential is answered 401 and its connection closed: it cannot keep it.
        try (Socket asking = new Socket(InetAddress.getLoopbackAddress(), port(), InetAddress.getByName("127.0.0.3"),
            0)) {
          asking.setSoTimeout(10_000);
          asking.getOutputStream().write(noCredential.getBytes(StandardCharsets.US_ASCII));
          String answer = new String(asking.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
          assertThat(answer).startsWith("HTTP/1.1 401").containsIgnoringCase("connection: close");
        }
        // Its place is free again before the strangers come (else a stranger arriving meanwhile takes another's).
        await().atMost(Duration.ofSeconds(10)).until(() -> openConnections() == left);
        // Strangers from two addresses hold every connection of the port, idle.
        while (strangers.size() < 4 * (round + 1)) {
          strangers.add(new Socket(InetAddress.getLoopbackAddress(), port(),
              InetAddress.getByName("127.0.0." + (4 + strangers.size() % 2)), 0));
        }
        // Every stranger of the round was seen: round 0 fills the port, later ones get back the place the backend
        // took and have three refused for their address's cap (so no late stranger races the backend).
        int refusedSoFar = 3 * round;
        await().atMost(Duration.ofSeconds(10))
            .until(() -> openConnections() == 4 && refused("address") == refusedSoFar);
        // A backend with a valid token is let in and answered all the same.
        try (Socket backend = new Socket(InetAddress.getLoopbackAddress(), port())) {
          backend.setSoTimeout(10_000);
          backend.getOutputStream().write(request("ListHistory", "{\"uid\":\"42\"}", "")
              .getBytes(StandardCharsets.US_ASCII));
          assertThat(readAtLeast(backend.getInputStream(), 1)).startsWith("HTTP/1.1 200 OK");
        }
      }
    } finally {
      for (Socket s : strangers) {
        s.close();
      }
    }
    assertThat(refused("evicted")).isGreaterThanOrEqualTo(5);
    assertThat(refused("connections")).isZero();
  }

  @Test
  void oneAddressGetsAtMostItsShareOfThePort(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase)
      throws Exception {
    start(redis, kafka, hbase, Map.of("api.http.max.connections", "10", "api.http.max.connections.per.address", "2",
        "api.http.request.timeout", "1m"));
    Socket a = counted("127.0.0.1", 1);
    try (Socket b = counted("127.0.0.1", 2)) {
      try (Socket over = new Socket(InetAddress.getLoopbackAddress(), port())) {
        over.setSoTimeout(10_000);
        assertThat(over.getInputStream().read()).as("closed at accept").isEqualTo(-1);
      }
      assertThat(refused("address")).isEqualTo(1);
      assertThat(refused("connections")).isZero();
      b.getOutputStream().write(request("GetPaused", "{\"uid\":\"42\"}", "").getBytes(StandardCharsets.US_ASCII));
      b.setSoTimeout(10_000);
      assertThat(readAtLeast(b.getInputStream(), 1)).as("those let in are served").startsWith("HTTP/1.1 200 OK");
      try (Socket other = counted("127.0.0.2", 3)) {
        other.getOutputStream().write(request("GetPaused", "{\"uid\":\"42\"}", "").getBytes(StandardCharsets.US_ASCII));
        other.setSoTimeout(10_000);
        assertThat(readAtLeast(other.getInputStream(), 1)).as("another address is let in").startsWith("HTTP/1.1 200 OK");
      }
      a.close();
      await().atMost(Duration.ofSeconds(10)).until(() -> openConnections() == 1);
      try (Socket again = counted("127.0.0.1", 2)) {
        again.getOutputStream().write(request("GetPaused", "{\"uid\":\"42\"}", "").getBytes(StandardCharsets.US_ASCII));
        again.setSoTimeout(10_000);
        assertThat(readAtLeast(again.getInputStream(), 1)).as("a closed connection frees its address's place")
            .startsWith("HTTP/1.1 200 OK");
      }
    } finally {
      a.close();
    }
  }

  /** A connection from {@code local} (a loopback address), waited for until the port counted {@code countedAfter}. */
  private Socket counted(String local, int countedAfter) throws Exception {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), port(), InetAddress.getByName(local), 0);
    await().atMost(Duration.ofSeconds(10)).until(() -> openConnections() == countedAfter);
    return s;
  }

  private double openConnections() {
    return api.node().registry().get("playline.api.http.connections").gauge().value();
  }
}
