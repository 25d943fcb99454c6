package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.FunctionCounter;
import io.playline.node.grpc.StreamErrorLog;
import io.playline.testing.Frames;
import io.playline.testing.GrpcPlayerClient;
import io.playline.testing.ManualTime;
import io.playline.testing.RawHttp2Client;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * Attacks on the player gRPC port below the calls, each from a raw HTTP/2 client on a real socket:
 * rapid reset (on one connection and spread over several of one address), connections that never open a stream, more TCP connections from one address than
 * allowed, and a flood of refused streams that must not flood the log.
 */
@ExtendWith(RealRedisExtension.class)
class Http2EdgeTest {
  private TestGateway gateway;

  private int start(RedisNamespace ns, Map<String, String> settings) {
    gateway = new TestGateway(ns, settings);
    return gateway.server.grpcAddress().getPort();
  }

  @AfterEach
  void stop() {
    gateway.close();
  }

  private double cut(String reason) {
    return gateway.counter("playline.grpc.connections.cut", "server", "player", "reason", reason);
  }

  @Test
  void aRapidResetFloodGetsGoAwayAndIsClosedWithinItsBudget(RedisNamespace ns) throws Exception {
    int port = start(ns, Map.of("grpc.max.rst.frames.per.window", "50", "grpc.rst.window", "10s"));
    try (GrpcPlayerClient player = GrpcPlayerClient.connect(port)) {
      player.send(Frames.auth(1, TestGateway.token(41)));
      assertThat(player.next().hasAuthOk()).isTrue();
      try (RawHttp2Client attacker = RawHttp2Client.connect(port)) {
        int sent = 0;
        while (sent < 20_000 && !attacker.closed()) {
          attacker.streams(10, true);
          sent += 10;
        }
        await().atMost(Duration.ofSeconds(5)).until(attacker::closed);
        // GOAWAY ENHANCE_YOUR_CALM was sent (the client may not read it: the socket is reset under it).
        assertThat(cut("rapid_reset")).isEqualTo(1);
        assertThat(sent).as("pairs sent before the close was seen").isLessThan(5_000);
      }
      // A player connected through the flood keeps its stream: only the attacker's connection went.
      player.send(Frames.keepAlive(2));
      assertThat(player.next().getSeq()).isEqualTo(2);
    }
    // Newcomers are served as before.
    try (GrpcPlayerClient player = GrpcPlayerClient.connect(port)) {
      player.send(Frames.auth(1, TestGateway.token(42)));
      assertThat(player.next().hasAuthOk()).isTrue();
    }
  }

  @Test
  void aRapidResetSpreadOverConnectionsOfOneAddressIsCutAsOne(RedisNamespace ns) throws Exception {
    // Each connection's own budget is out of reach: only the address's shared one can cut them.
    int port = start(ns, Map.of("grpc.max.rst.frames.per.window", "100000", "grpc.max.early.resets.per.address", "50",
        "grpc.rst.window", "1h"));
    try (GrpcPlayerClient player = GrpcPlayerClient.connect(port)) {
      player.send(Frames.auth(1, TestGateway.token(43)));
      assertThat(player.next().hasAuthOk()).isTrue();
      List<RawHttp2Client> attackers = new java.util.ArrayList<>();
      try {
        for (int i = 0; i < 4; i++) {
          attackers.add(RawHttp2Client.connect(port));
        }
        // 40 pairs each: under the address's 50 alone, over it together.
        for (RawHttp2Client a : attackers) {
          a.streams(40, true);
        }
        // Whichever connection went over is cut; each other one at its next early reset.
        await().atMost(Duration.ofSeconds(10)).until(() -> {
          boolean all = true;
          for (RawHttp2Client a : attackers) {
            if (!a.closed()) {
              a.streams(1, true);
              all = false;
            }
          }
          return all;
        });
        assertThat(cut("rapid_reset")).isEqualTo(4);
      } finally {
        attackers.forEach(RawHttp2Client::close);
      }
      // The player from the same address, answered before, is not one of them.
      player.send(Frames.keepAlive(2));
      assertThat(player.next().getSeq()).isEqualTo(2);
    }
  }

  @Test
  void playersCancellingStreamsAfterTheirAuthOkSpendNoEarlyResets(RedisNamespace ns) throws Exception {
    int port = start(ns, Map.of("grpc.max.early.resets.per.address", "1"));
    for (int i = 0; i < 4; i++) {
      // close() cancels the stream: an RST_STREAM for a stream already answered.
      try (GrpcPlayerClient player = GrpcPlayerClient.connect(port)) {
        player.send(Frames.auth(1, TestGateway.token(50 + i)));
        assertThat(player.next().hasAuthOk()).isTrue();
      }
    }
    try (GrpcPlayerClient player = GrpcPlayerClient.connect(port)) {
      player.send(Frames.auth(1, TestGateway.token(60)));
      assertThat(player.next().hasAuthOk()).isTrue();
    }
    assertThat(cut("rapid_reset")).isZero();
  }

  @Test
  void aConnectionThatOpensNoStreamIsClosedAfterTheFirstStreamDeadline(RedisNamespace ns) throws Exception {
    ManualTime time = new ManualTime();
    gateway = new TestGateway(ns, Map.of("grpc.first.stream.timeout", "3s"), time);
    int port = gateway.server.grpcAddress().getPort();
    try (GrpcPlayerClient player = GrpcPlayerClient.connect(port)) {
      player.send(Frames.auth(1, TestGateway.token(42)));
      assertThat(player.next().hasAuthOk()).isTrue();
      try (RawHttp2Client silent = RawHttp2Client.connect(port)) {
        // Counted once its deadline is armed (somewhere in the setting's last quarter).
        await().atMost(Duration.ofSeconds(5)).until(() -> counted() == 2);
        time.advance(Duration.ofSeconds(3));
        await().atMost(Duration.ofSeconds(5)).until(silent::closed);
      }
      assertThat(cut("no_stream")).isEqualTo(1);
      // The player's connection opened a stream: the whole setting passed and it stays.
      player.send(Frames.keepAlive(2));
      assertThat(player.next().getSeq()).isEqualTo(2);
    }
  }

  /** TCP connections on the player port counted now. */
  private double counted() {
    return gateway.registry.get("playline.grpc.connections").tag("server", "player").gauge().value();
  }

  /** Connects and waits until the server counted the connection: connections race to accept on different loops. */
  private RawHttp2Client admitted(int port, int countedAfter) {
    RawHttp2Client c = RawHttp2Client.tcp(port);
    await().atMost(Duration.ofSeconds(5)).until(() -> counted() == countedAfter);
    return c;
  }

  @Test
  void tcpConnectionsOverThePerAddressCapAreClosedAtAccept(RedisNamespace ns) {
    int port = start(ns, Map.of("connection.max.per.address", "2", "handshake.timeout", "1m"));
    RawHttp2Client first = admitted(port, 1);
    try (RawHttp2Client second = admitted(port, 2)) {
      try (RawHttp2Client third = RawHttp2Client.tcp(port)) {
        await().atMost(Duration.ofSeconds(5)).until(third::closed);
      }
      assertThat(gateway.counter("playline.grpc.connections.refused", "server", "player", "reason", "address"))
          .isEqualTo(1);
      assertThat(counted()).isEqualTo(2);
      assertThat(first.closed()).isFalse();
      assertThat(second.closed()).isFalse();
      first.close();
      // The slot is given back: a new connection is let in, and the next one refused again.
      await().atMost(Duration.ofSeconds(5)).until(() -> counted() == 1);
      try (RawHttp2Client again = admitted(port, 2); RawHttp2Client over = RawHttp2Client.tcp(port)) {
        await().atMost(Duration.ofSeconds(5)).until(over::closed);
        assertThat(again.closed()).isFalse();
      }
      assertThat(gateway.counter("playline.grpc.connections.refused", "server", "player", "reason", "address"))
          .isEqualTo(2);
    } finally {
      first.close();
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> counted() == 0);
  }

  @Test
  void tcpConnectionsOverTheNodeCapAreClosedAtAcceptAndTheWebSocketPortKeepsItsOwn(RedisNamespace ns)
      throws Exception {
    int port = start(ns, Map.of("connection.max", "2", "handshake.timeout", "1m"));
    try (RawHttp2Client first = admitted(port, 1); RawHttp2Client second = admitted(port, 2)) {
      try (RawHttp2Client third = RawHttp2Client.tcp(port)) {
        await().atMost(Duration.ofSeconds(5)).until(third::closed);
      }
      assertThat(gateway.counter("playline.grpc.connections.refused", "server", "player", "reason", "node"))
          .isEqualTo(1);
      assertThat(gateway.counter("playline.grpc.connections.refused", "server", "player", "reason", "address"))
          .isZero();
      assertThat(first.closed()).isFalse();
      assertThat(second.closed()).isFalse();
      // The gRPC port's TCP count is its own: a WebSocket player is still let in and served.
      try (WsPlayerClient player = WsPlayerClient.connect(gateway.server.wsAddress().getPort())) {
        player.send(Frames.auth(1, TestGateway.token(42)));
        assertThat(player.next().hasAuthOk()).isTrue();
      }
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> counted() == 0);
  }

  @Test
  void aFloodOfRefusedStreamsLogsAtMostOneLineAndNoStackTrace(RedisNamespace ns) {
    int port = start(ns, Map.of("grpc.max.concurrent.calls.per.connection", "1"));
    List<LogRecord> grpcRecords = new CopyOnWriteArrayList<>();
    Handler capture = new Handler() {
      @Override
      public void publish(LogRecord record) {
        grpcRecords.add(record);
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    java.util.logging.Logger grpcNetty = java.util.logging.Logger.getLogger("io.grpc.netty");
    grpcNetty.addHandler(capture);
    Logger summary = (Logger) LoggerFactory.getLogger(StreamErrorLog.class);
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    summary.addAppender(lines);
    try (RawHttp2Client attacker = RawHttp2Client.connect(port)) {
      // Fewer than grpc.max.rst.frames.per.window (200): gRPC counts the resets it sends too.
      attacker.streams(150, false);
      // One stream is let in; the server refuses the other 149 (RST_STREAM REFUSED_STREAM).
      await().atMost(Duration.ofSeconds(10)).until(() -> attacker.rstStreamsReceived.get() >= 149);
    } finally {
      grpcNetty.removeHandler(capture);
      summary.detachAppender(lines);
    }
    FunctionCounter errors = gateway.registry.find("playline.grpc.stream.errors").functionCounter();
    assertThat(errors).isNotNull();
    assertThat(errors.count()).isGreaterThanOrEqualTo(149);
    assertThat(grpcRecords).extracting(LogRecord::getMessage).doesNotContain("Stream Error");
    assertThat(lines.list).hasSizeLessThanOrEqualTo(1);
    assertThat(lines.list).allSatisfy(e -> assertThat(e.getThrowableProxy()).isNull());
  }
}
