package io.playline.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.netty.handler.codec.http2.Http2Headers;
import io.playline.api.config.ApiConfig;
import io.playline.api.config.ApiHttpConfig;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.ItemKey;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.MalformedGrpcMessages;
import io.playline.testing.ManualTime;
import io.playline.testing.RawHttp2Client;
import io.playline.testing.RedisNamespace;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What a client can make the internal API's port spend, on a node as the api role runs it: TCP
 * connections per address and per node (strangers give way to a backend with a token), resets,
 * connections without a stream or held forever, and log lines for unreadable messages.
 */
class ApiPortBudgetsTest extends AbstractApiNodeTest {
  /** TCP connections on the API port counted now. */
  private double apiConnections() {
    return node.registry().get("playline.grpc.connections").tag("server", "api").gauge().value();
  }

  private double apiRefused(String reason) {
    return node.registry().get("playline.grpc.connections.refused").tags("server", "api", "reason", reason).counter()
        .count();
  }

  /** A TCP connection to the API port from {@code local} (a loopback address), waited for until the node counted it. */
  private Socket counted(String local, int countedAfter) throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), api.address().getPort(), InetAddress.getByName(local), 0);
    await().atMost(Duration.ofSeconds(5)).until(() -> apiConnections() == countedAfter);
    return s;
  }

  /** Whether the node closed {@code s} (end of stream or reset) within 5 s. */
  private static boolean closedByNode(Socket s) throws IOException {
    s.setSoTimeout(5_000);
    try {
      byte[] sink = new byte[256];
      while (s.getInputStream().read(sink) >= 0) {
        // what the node sent before closing
      }
      return true;
    } catch (java.net.SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  /** A backend's channel with a service token from {@code local} (a loopback address), proven by one call. */
  private ManagedChannel provenBackend(String local) {
    Metadata headers = new Metadata();
    headers.put(ServiceAuthInterceptor.AUTHORIZATION, bearer());
    ManagedChannel c = NettyChannelBuilder.forAddress("127.0.0.1", api.address().getPort()).usePlaintext()
        .localSocketPicker(new NettyChannelBuilder.LocalSocketPicker() {
          @Override
          public java.net.SocketAddress createSocketAddress(java.net.SocketAddress remote, io.grpc.Attributes attrs) {
            return new java.net.InetSocketAddress(local, 0);
          }
        })
        .intercept(MetadataUtils.newAttachHeadersInterceptor(headers)).build();
    HistoryGrpc.newBlockingStub(c).withDeadlineAfter(20, TimeUnit.SECONDS).getProgress(GetProgressRequest.newBuilder()
        .setUid(7).addItems(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(1)).build());
    return c;
  }

  @Test
  void tcpConnectionsOverTheApiCapsAreClosedAtAcceptWhenEveryConnectionProvedAToken(RedisNamespace redis,
      KafkaNamespace kafka, HBaseNamespace hbase) throws Exception {
    node.close();
    api = apiNode(redis, kafka, hbase, new ApiConfig(API_SECRET, "127.0.0.1", 0, 3, 2, 10_000, ApiHttpConfig.anyPort()));
    List<ManagedChannel> backends = new java.util.ArrayList<>();
    try {
      backends.add(provenBackend("127.0.0.1"));
      backends.add(provenBackend("127.0.0.1"));
      await().atMost(Duration.ofSeconds(5)).until(() -> apiConnections() == 2);
      try (Socket a3 = new Socket(InetAddress.getLoopbackAddress(), api.address().getPort())) {
        assertThat(closedByNode(a3)).isTrue();
      }
      assertThat(apiRefused("address")).isEqualTo(1);
      // Another address is let in up to the node's cap of three, then refused for the node.
      backends.add(provenBackend("127.0.0.2"));
      await().atMost(Duration.ofSeconds(5)).until(() -> apiConnections() == 3);
      try (Socket b2 = new Socket(InetAddress.getLoopbackAddress(), api.address().getPort(),
          InetAddress.getByName("127.0.0.2"), 0)) {
        assertThat(closedByNode(b2)).isTrue();
      }
      assertThat(apiRefused("node")).isEqualTo(1);
      assertThat(apiCut("gave_way")).as("a proven connection never gives way").isZero();
      assertThat(apiConnections()).isEqualTo(3);
    } finally {
      for (ManagedChannel c : backends) {
        c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> apiConnections() == 0);
  }

  @Test
  void strangersHoldingEveryApiConnectionGiveWayToABackendWithAToken(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase) throws Exception {
    node.close();
    api = apiNode(redis, kafka, hbase, new ApiConfig(API_SECRET, "127.0.0.1", 0, 4, 2, 10_000, ApiHttpConfig.anyPort()));
    List<Socket> strangers = new java.util.ArrayList<>();
    ManagedChannel backend = null;
    try {
      // Strangers from two addresses hold every connection the port has (no call, or none with a token).
      strangers.add(counted("127.0.0.2", 1));
      strangers.add(counted("127.0.0.2", 2));
      strangers.add(counted("127.0.0.3", 3));
      strangers.add(counted("127.0.0.3", 4));
      backend = provenBackend("127.0.0.1");
      assertThat(apiCut("gave_way")).isEqualTo(1);
      assertThat(apiRefused("node") + apiRefused("address")).isZero();
      assertThat(closedByNode(strangers.get(0))).as("the oldest stranger of the addresses holding most").isTrue();
      // A stranger over its address's cap takes its own address's oldest place, never the backend's.
      Socket again = new Socket(InetAddress.getLoopbackAddress(), api.address().getPort(),
          InetAddress.getByName("127.0.0.3"), 0);
      strangers.add(again);
      await().atMost(Duration.ofSeconds(5)).until(() -> apiCut("gave_way") == 2);
      assertThat(closedByNode(strangers.get(2))).as("its own address's oldest").isTrue();
      HistoryGrpc.newBlockingStub(backend).withDeadlineAfter(20, TimeUnit.SECONDS).getProgress(GetProgressRequest
          .newBuilder().setUid(7).addItems(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(1)).build());
      assertThat(apiCut("gave_way")).isEqualTo(2);
    } finally {
      for (Socket s : strangers) {
        s.close();
      }
      if (backend != null) {
        backend.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  private double apiCut(String reason) {
    return node.registry().get("playline.grpc.connections.cut").tags("server", "api", "reason", reason).counter()
        .count();
  }

  @Test
  void theApiPortHasItsOwnResetBudget(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase)
      throws Exception {
    String path = "/" + HistoryGrpc.getGetProgressMethod().getFullMethodName();
    Http2Headers authorized = RawHttp2Client.callHeaders(path).add("authorization", bearer());
    // A backend cancelling 1 000 calls on one connection (its deadlines): past the player port's
    // grpc.max.rst.frames.per.window (200), within the API's own (10 000).
    try (RawHttp2Client backend = RawHttp2Client.connect(api.address().getPort())) {
      backend.streams(authorized, 1_000, true);
      // One more call without a token is answered (UNAUTHENTICATED): every reset before it was read.
      backend.streams(path, 1, false);
      await().atMost(Duration.ofSeconds(10)).until(() -> backend.headersReceived.get() >= 1 || backend.closed());
      assertThat(backend.closed()).isFalse();
    }
    assertThat(apiCut("rapid_reset")).isZero();

    node.close();
    api = apiNode(redis, kafka, hbase, new ApiConfig(API_SECRET, "127.0.0.1", 0, 4_096, 1_024, 50,
        ApiHttpConfig.anyPort()));
    try (RawHttp2Client attacker = RawHttp2Client.connect(api.address().getPort())) {
      attacker.streams(authorized, 1_000, true);
      await().atMost(Duration.ofSeconds(10)).until(attacker::closed);
    }
    assertThat(apiCut("rapid_reset")).isEqualTo(1);
  }

  @Test
  void aConnectionThatOpensNoStreamOnTheApiPortIsClosedAfterTheFirstStreamDeadline(RedisNamespace redis,
      KafkaNamespace kafka, HBaseNamespace hbase) throws Exception {
    node.close();
    ManualTime time = new ManualTime();
    api = apiNode(redis, kafka, hbase, new ApiConfig(API_SECRET, "127.0.0.1"),
        Map.of("grpc.first.stream.timeout", "3s"), time);
    channel.shutdownNow();
    channel = channel(bearer());
    var stub = HistoryGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
    GetProgressRequest request = GetProgressRequest.newBuilder().setUid(7)
        .addItems(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(1)).build();
    stub.getProgress(request);
    try (RawHttp2Client silent = RawHttp2Client.connect(api.address().getPort())) {
      // Counted once its deadline is armed (somewhere in the setting's last quarter).
      await().atMost(Duration.ofSeconds(5)).until(() -> apiConnections() == 2);
      time.advance(Duration.ofSeconds(3));
      await().atMost(Duration.ofSeconds(5)).until(silent::closed);
    }
    assertThat(apiCut("no_stream")).isEqualTo(1);
    // The backend's connection opened a stream: the whole setting passed and it stays.
    HistoryGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS).getProgress(request);
    assertThat(apiCut("no_stream")).isEqualTo(1);
  }

  @Test
  void anOldApiConnectionIsSentAwayAndClosedAfterTheGraceThoughItsCallNeverEnds(RedisNamespace redis,
      KafkaNamespace kafka, HBaseNamespace hbase) throws Exception {
    node.close();
    api = apiNode(redis, kafka, hbase, new ApiConfig(API_SECRET, "127.0.0.1"),
        Map.of("grpc.max.connection.age", "1s", "grpc.max.connection.age.grace", "300ms"));
    String path = "/" + HistoryGrpc.getGetProgressMethod().getFullMethodName();
    try (RawHttp2Client backend = RawHttp2Client.connect(api.address().getPort())) {
      // A call whose request never comes: it holds the connection open until the grace ends.
      backend.streams(RawHttp2Client.callHeaders(path).add("authorization", bearer()), 1, false);
      await().atMost(Duration.ofSeconds(10)).until(() -> backend.goAwayError.get() >= 0);
      assertThat(backend.goAwayError.get()).isZero(); // NO_ERROR: a drain, not a fault
      // The call was still open when the node asked the connection to go: only the grace ends it.
      assertThat(backend.headersReceived.get()).isZero();
      assertThat(backend.rstStreamsReceived.get()).isZero();
      await().atMost(Duration.ofSeconds(10)).until(backend::closed);
    }
    // A backend's channel reconnects and is served (a call may meet its connection's own age: retried).
    ManagedChannel again = channel(bearer());
    try {
      GetProgressRequest request = GetProgressRequest.newBuilder().setUid(7)
          .addItems(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(1)).build();
      await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> HistoryGrpc.newBlockingStub(again)
          .withDeadlineAfter(5, TimeUnit.SECONDS).getProgress(request) != null);
    } finally {
      again.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void unreadableRequestMessagesAreAnsweredWithTheirStatusAndNeverLoggedPerMessage() {
    Http2Headers headers = RawHttp2Client.callHeaders("/playline.v1.History/GetPaused").add("authorization", bearer());
    ch.qos.logback.classic.Logger root =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> lines =
        new ch.qos.logback.core.read.ListAppender<>();
    lines.start();
    root.addAppender(lines);
    try {
      byte[] bomb = MalformedGrpcMessages.gzipBomb(1 << 20);
      MalformedGrpcMessages.Sent large = MalformedGrpcMessages.send(api.address().getPort(),
          RawHttp2Client.callHeaders("/playline.v1.History/GetPaused").add("authorization", bearer())
              .add("grpc-encoding", "gzip"), MalformedGrpcMessages.framed(true, bomb.length, bomb), 300);
      assertThat(large.statuses()).hasSizeGreaterThanOrEqualTo(250).allSatisfy(s -> assertThat(s).startsWith("8 "));
      byte[] garbage = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF};
      MalformedGrpcMessages.Sent undecodable = MalformedGrpcMessages.send(api.address().getPort(), headers,
          MalformedGrpcMessages.framed(false, garbage.length, garbage), 300);
      assertThat(undecodable.statuses()).hasSizeGreaterThanOrEqualTo(250)
          .allSatisfy(s -> assertThat(s).startsWith("3 ").doesNotContain("Exception", "protobuf.Invalid"));
      assertThat(large.grpcRecords()).isEmpty();
      assertThat(undecodable.grpcRecords()).isEmpty();
    } finally {
      root.detachAppender(lines);
    }
    // One summary line per kind, no stack trace.
    assertThat(lines.list).filteredOn(e -> e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.WARN)
        && (e.getLoggerName().startsWith("io.grpc") || e.getLoggerName().startsWith("io.playline"))).isEmpty();
    assertThat(lines.list).filteredOn(e -> e.getLoggerName().endsWith("ClientErrorLog")).hasSizeLessThanOrEqualTo(2)
        .allSatisfy(e -> assertThat(e.getThrowableProxy()).isNull());
  }
}
