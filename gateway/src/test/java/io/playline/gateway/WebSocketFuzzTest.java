package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.playline.gateway.config.GatewayConfig;
import io.playline.proto.v1.Auth;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ClearHistory;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.DeleteItems;
import io.playline.proto.v1.Heartbeat;
import io.playline.proto.v1.HistoryQuery;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.PlayEvent;
import io.playline.proto.v1.ProgressQuery;
import io.playline.proto.v1.Refresh;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * Fuzzes a real gateway node's WebSocket port over real sockets, end to end: the upgrade, the PROXY
 * protocol header, WebSocket framing, protobuf decoding, every frame type before and after a real
 * authentication (device and platform labels, heartbeat events, queries, deletes, clears, refreshes,
 * resumes), with heartbeats written to the real Redis.
 *
 * <p>Each input is one connection: the harness writes what the input says, half-closes, and reads
 * until the node closes. Every input must end with the node closing the connection (no hang), and
 * everything the node sent must be a well-formed WebSocket stream of binary {@code ServerFrame}s
 * and a close frame with a documented code: never {@code INTERNAL}, never an unexpected failure in
 * the node's log, never a leaked buffer (Netty's paranoid leak detector runs in every test JVM).
 * After the run the node has no connection left open and still serves a player.
 *
 * <p>Regression mode (every build) replays the inputs in {@code WebSocketFuzzTestInputs/webSocket};
 * {@code bin/fuzz gateway WebSocketFuzzTest} fuzzes (docs/security.md, "Fuzzing").
 */
@ExtendWith(RealRedisExtension.class)
class WebSocketFuzzTest {
  private static final int MAX_FRAME = 4096;
  private static final int MAX_EVENTS = 8;
  private static final byte[] UPGRADE = ("GET " + GatewayConfig.WS_PATH + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
      + "Sec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FUZZ_MASK = {0x1b, 0x2c, 0x3d, 0x4e};
  private static final long[] UIDS = {1, 2, 3, 42, Long.MAX_VALUE};

  private static TestGateway plain;
  private static TestGateway proxied;
  private static Level playlineLevel;
  private static final List<String> problems = new CopyOnWriteArrayList<>();
  private static final AppenderBase<ILoggingEvent> watcher = new AppenderBase<>() {
    @Override
    protected void append(ILoggingEvent e) {
      boolean leak = e.getLoggerName().startsWith("io.netty.util.ResourceLeakDetector") && e.getLevel().isGreaterOrEqual(Level.WARN);
      boolean unexpected = e.getLoggerName().startsWith("io.playline") && e.getLevel().isGreaterOrEqual(Level.WARN)
          && !e.getFormattedMessage().contains("Identity check");
      if (leak || unexpected) {
        problems.add(e.getLoggerName() + ": " + e.getFormattedMessage());
      }
    }
  };

  private static RedisNamespace redis;

  @BeforeAll
  static void redis(RedisNamespace ns) {
    redis = ns;
  }

  /**
   * Starts the nodes on the first input, not in {@code @BeforeAll}: in fuzzing mode Jazzer's agent
   * is attached when the fuzz test starts, and retransforming the classes of a node that is already
   * serving crashed this JVM (17.0.15); loaded after the agent, they are instrumented as they load.
   */
  private static synchronized void startNodes() {
    if (plain != null) {
      return;
    }
    // Jazzer's SSRF detector reports any connection; this test makes only loopback ones, to its nodes and Redis.
    com.code_intelligence.jazzer.api.BugDetectors.allowNetworkConnections();
    Map<String, String> settings = Map.of(
        "frame.max.bytes", Integer.toString(MAX_FRAME),
        "heartbeat.max.events", Integer.toString(MAX_EVENTS),
        "session.ttl", "10s",
        "auth.timeout", "2s",
        "handshake.timeout", "2s",
        "connection.max.per.address", "100000",
        "connection.max.frames.per.second", "1000");
    plain = new TestGateway(redis, settings);
    java.util.HashMap<String, String> withProxy = new java.util.HashMap<>(settings);
    withProxy.put("proxy.protocol", "true");
    proxied = new TestGateway(redis, withProxy);
    // Leaks of earlier tests in this JVM are reported before the watcher listens, not blamed on an input.
    reportPendingLeaks();
    watcher.start();
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(watcher);
    // A debug line per closed connection is millions of lines in a fuzzing run.
    playlineLevel = ((Logger) LoggerFactory.getLogger("io.playline")).getLevel();
    ((Logger) LoggerFactory.getLogger("io.playline")).setLevel(Level.INFO);
  }

  /** Leaked buffers are reported once the collector has found them and a buffer is next allocated. */
  private static void reportPendingLeaks() {
    for (int i = 0; i < 3; i++) {
      System.gc();
      ByteBuf b = PooledByteBufAllocator.DEFAULT.buffer(64);
      b.release();
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (plain == null) {
      return;
    }
    try {
      // Whatever the inputs did, the node lets go of every connection and still serves a player.
      for (TestGateway node : List.of(plain, proxied)) {
        await("connections released").atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() ->
            node.registry.get("playline.connections.open").gauge().value() == 0);
      }
      try (WsPlayerClient c = plain.ws()) {
        c.send(Frames.auth(1, TestGateway.token(7), "after-fuzz"));
        assertThat(c.next().hasAuthOk()).isTrue();
        c.send(Frames.heartbeat(2, Frames.event(Business.VIDEO, 5, 1000, 2000, 0)));
        assertThat(c.next().hasHeartbeatAck()).isTrue();
      }
      reportPendingLeaks();
      assertThat(problems).as("leaks and unexpected failures logged").isEmpty();
    } finally {
      ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(watcher);
      ((Logger) LoggerFactory.getLogger("io.playline")).setLevel(playlineLevel);
      if (plain != null) {
        plain.close();
      }
      if (proxied != null) {
        proxied.close();
      }
    }
  }

  @FuzzTest(maxExecutions = 1_000_000, maxDuration = "3h")
  void webSocket(FuzzedDataProvider data) throws IOException {
    startNodes();
    int mode = data.consumeInt(0, 3);
    TestGateway node = mode == 3 ? proxied : plain;
    boolean upgraded = false;
    try (Socket socket = new Socket()) {
      socket.setTcpNoDelay(true);
      socket.connect(new InetSocketAddress("127.0.0.1", node.server.wsAddress().getPort()), 5_000);
      socket.setSoTimeout(20_000);
      OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 16 * 1024);
      DataInputStream in = new DataInputStream(socket.getInputStream());
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      if (mode == 3) {
        // A PROXY protocol header (or anything) in front of the upgrade.
        out.write(data.consumeBytes(data.consumeInt(0, 256)));
      }
      out.write(UPGRADE);
      out.flush();
      // As RFC 6455 asks of a client: no frame before the server's answer to the upgrade.
      upgraded = NodeAnswer.readHead(in, answer);
      if (upgraded) {
        switch (mode) {
          case 0 -> out.write(data.consumeRemainingAsBytes()); // WebSocket framing as it comes
          case 2 -> { // a real authentication, then frames
            long uid = data.pickValue(UIDS);
            RawWebSocket.writeFrame(out, 0x82, auth(data, uid).toByteArray(), FUZZ_MASK);
            out.flush();
            ServerFrame first = NodeAnswer.readServerFrame(in, answer);
            if (first != null && first.hasAuthOk()) {
              frames(out, data, uid);
            }
          }
          default -> frames(out, data, 0); // frames before authentication
        }
      }
      try {
        out.flush();
        socket.shutdownOutput();
      } catch (IOException e) {
        // The node closed first (an error answer, a refused header): what it sent is checked below.
      }
      boolean reset = NodeAnswer.drain(socket.getInputStream(), answer);
      NodeAnswer.check(answer.toByteArray(), mode == 3, reset);
    }
    assertThat(problems).as("leaks and unexpected failures logged").isEmpty();
  }

  private static Auth auth(FuzzedDataProvider data, long uid) {
    Auth.Builder a = Auth.newBuilder().setToken(TestGateway.token(uid))
        .setDeviceId(data.consumeBoolean() ? "d" + data.consumeInt(0, 3) : data.consumeString(80));
    if (data.consumeBoolean()) {
      a.setPlatform(data.consumeString(40));
    }
    if (data.consumeBoolean()) {
      a.setFlagDate(data.consumeBoolean() ? java.time.LocalDate.now(java.time.ZoneOffset.UTC).toString()
          : data.consumeString(16));
    }
    if (data.consumeBoolean()) {
      a.setSessionId(data.consumeString(48));
    }
    return a.build();
  }

  /** Frames from the rest of the input: opcodes, flags and payloads the input picks, masked as a client's must be. */
  private static void frames(OutputStream out, FuzzedDataProvider data, long uid) throws IOException {
    for (int i = 0; i < 12 && data.remainingBytes() > 0; i++) {
      int kind = data.consumeInt(0, 9);
      byte[] payload = kind < 7 ? clientFrame(data, uid, kind).toByteArray() : data.consumeBytes(data.consumeInt(0, 300));
      int first = kind == 9 ? data.consumeInt(0, 255) : 0x82;
      RawWebSocket.writeFrame(out, first, payload, kind != 8 || data.consumeBoolean() ? FUZZ_MASK : null);
    }
  }

  private static ClientFrame clientFrame(FuzzedDataProvider data, long uid, int kind) {
    ClientFrame.Builder f = ClientFrame.newBuilder().setSeq(data.consumeLong(0, 1000));
    switch (kind) {
      case 0 -> {
        Heartbeat.Builder h = Heartbeat.newBuilder();
        int n = data.consumeInt(0, MAX_EVENTS + 1);
        for (int i = 0; i < n && data.remainingBytes() > 0; i++) {
          h.addEvents(PlayEvent.newBuilder().setBusinessValue(data.consumeInt(-1, 7))
              .setOid(data.consumeBoolean() ? data.consumeLong(1, 20) : data.consumeLong())
              .setSubId(data.consumeBoolean() ? 0 : data.consumeLong())
              .setProgressMs(data.consumeBoolean() ? data.consumeLong(-1, 100_000) : data.consumeLong())
              .setDurationMs(data.consumeBoolean() ? 100_000 : data.consumeLong())
              .setEventTimeMs(data.consumeBoolean() ? System.currentTimeMillis() + data.consumeLong(-10_000, 10_000)
                  : data.consumeLong()));
        }
        if (data.consumeBoolean()) {
          h.setFlagDate(data.consumeString(16));
        }
        f.setHeartbeat(h);
      }
      case 1 -> f.setProgressQuery(ProgressQuery.newBuilder().addAllItems(items(data)));
      case 2 -> {
        HistoryQuery.Builder q = HistoryQuery.newBuilder().setLimit(data.consumeInt(-2, 200));
        for (int i = data.consumeInt(0, 3); i > 0; i--) {
          q.addBusinessesValue(data.consumeInt(-1, 7));
        }
        if (data.consumeBoolean()) {
          q.setAfter(Cursor.newBuilder().setViewTimeMs(data.consumeLong()).setItem(ItemKey.newBuilder()
              .setBusinessValue(data.consumeInt(-1, 7)).setOid(data.consumeLong())));
        }
        f.setHistoryQuery(q);
      }
      case 3 -> f.setDelete(DeleteItems.newBuilder().addAllItems(items(data)));
      case 4 -> f.setClear(ClearHistory.newBuilder().addBusinessesValue(data.consumeInt(-1, 7)));
      case 5 -> f.setRefresh(Refresh.newBuilder().setToken(switch (data.consumeInt(0, 2)) {
        case 0 -> TestGateway.token(uid == 0 ? 1 : uid);
        case 1 -> TestGateway.token(uid == 1 ? 2 : 1);
        default -> data.consumeString(200);
      }));
      default -> f.setAuth(auth(data, data.pickValue(UIDS)));
    }
    return f.build();
  }

  private static List<ItemKey> items(FuzzedDataProvider data) {
    List<ItemKey> items = new java.util.ArrayList<>();
    for (int i = data.consumeInt(0, 4); i > 0; i--) {
      items.add(ItemKey.newBuilder().setBusinessValue(data.consumeInt(-1, 7)).setOid(data.consumeLong()).build());
    }
    return items;
  }
}
