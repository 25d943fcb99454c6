package io.playline.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.nimbusds.jwt.JWTClaimsSet;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.netty.handler.codec.http2.Http2Headers;
import io.playline.api.config.ApiAccess;
import io.playline.api.config.HttpAccess;
import io.playline.core.config.ConfigSource;
import io.playline.node.Node;
import io.playline.node.NodeConfig;
import io.playline.node.admin.Readiness;
import io.playline.node.auth.Hs256;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.GetItemStatsRequest;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ItemStats;
import io.playline.proto.v1.PlayEvent;
import io.playline.proto.v1.ReportRequest;
import io.playline.proto.v1.ReportResponse;
import io.playline.testing.Frames;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.MalformedGrpcMessages;
import io.playline.testing.RawHttp2Client;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The internal API on a node that accepts no players, as the api role runs it, on real Redis, Kafka and HBase. */
@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class, RealHBaseExtension.class})
class ApiServerTest {
  static final String API_SECRET = "api-server-test-secret-0123456789-abcdef";
  private Node node;
  private ApiServer api;
  private ManagedChannel channel;
  private ManagedChannel bare;

  @BeforeEach
  void start(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) {
    api = apiNode(redis, kafka, hbase, new ApiAccess(API_SECRET, "127.0.0.1"));
    channel = channel(bearer());
    bare = NettyChannelBuilder.forAddress("127.0.0.1", api.address().getPort()).usePlaintext().build();
  }

  /** Starts {@link #node} (it accepts no players) and the internal API on it with {@code access}. */
  private ApiServer apiNode(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase, ApiAccess access) {
    return apiNode(redis, kafka, hbase, access, Map.of());
  }

  /** {@link #apiNode(RedisNamespace, KafkaNamespace, HBaseNamespace, ApiAccess)} with {@code settings} added. */
  private ApiServer apiNode(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase, ApiAccess access,
      Map<String, String> settings) {
    ConfigSource source = source(redis, kafka, hbase).with(settings);
    node = Node.builder(NodeConfig.from(source))
        .core(Node.historyCore(source, redis.redisUri(), kafka.bootstrapServers(), "api-test", hbase.configuration()))
        .start();
    return ApiServer.attach(node, access);
  }

  private static ConfigSource source(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) {
    return ConfigSource.empty().with(Map.of(
        "bind.host", "127.0.0.1", "api.port", "0", "admin.port", "0", "node.id", "api-test",
        "redis.key.prefix", redis.keyPrefix(), "kafka.topic.history", kafka.topic("history"),
        "kafka.topic.first.today", kafka.topic("first-today"), "hbase.table", hbase.table("history").getNameAsString(),
        "kafka.topic.partitions", Integer.toString(KafkaNamespace.PARTITIONS)));
  }

  /** A player token (HS256, {@code sub} = uid), as the player edge accepts it. */
  private static String playerToken(String secret, long uid, Instant now) {
    return Hs256.sign("auth.secret", secret, new JWTClaimsSet.Builder().subject(Long.toString(uid))
        .issueTime(Date.from(now)).expirationTime(Date.from(now.plusSeconds(60))).build());
  }

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
    api = apiNode(redis, kafka, hbase, new ApiAccess(API_SECRET, "127.0.0.1", 0, 3, 2, 10_000, HttpAccess.anyPort()));
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
    api = apiNode(redis, kafka, hbase, new ApiAccess(API_SECRET, "127.0.0.1", 0, 4, 2, 10_000, HttpAccess.anyPort()));
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
    api = apiNode(redis, kafka, hbase, new ApiAccess(API_SECRET, "127.0.0.1", 0, 4_096, 1_024, 50,
        HttpAccess.anyPort()));
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
    // Long enough for the backend's own first call on a loaded machine (each deadline falls in the
    // setting's last quarter, so as early as 2.25 s).
    api = apiNode(redis, kafka, hbase, new ApiAccess(API_SECRET, "127.0.0.1"),
        Map.of("grpc.first.stream.timeout", "3s"));
    channel.shutdownNow();
    channel = channel(bearer());
    long connecting = System.nanoTime();
    var stub = HistoryGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
    GetProgressRequest request = GetProgressRequest.newBuilder().setUid(7)
        .addItems(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(1)).build();
    stub.getProgress(request);
    try (RawHttp2Client silent = RawHttp2Client.connect(api.address().getPort())) {
      await().atMost(Duration.ofSeconds(15)).until(silent::closed);
    }
    assertThat(apiCut("no_stream")).isEqualTo(1);
    // The backend's connection opened a stream: it stays past the whole setting.
    long passed = connecting + Duration.ofSeconds(3).plusMillis(200).toNanos();
    await().atMost(Duration.ofSeconds(10)).until(() -> System.nanoTime() - passed > 0);
    HistoryGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS).getProgress(request);
    assertThat(apiCut("no_stream")).isEqualTo(1);
  }

  @Test
  void anOldApiConnectionIsSentAwayAndClosedAfterTheGraceThoughItsCallNeverEnds(RedisNamespace redis,
      KafkaNamespace kafka, HBaseNamespace hbase) throws Exception {
    node.close();
    api = apiNode(redis, kafka, hbase, new ApiAccess(API_SECRET, "127.0.0.1"),
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

  /** A valid service token for 5 minutes, as a backend sends it. */
  private static String bearer() {
    return "Bearer " + ServiceTokens.mint(API_SECRET, "api-server-test", Duration.ofMinutes(5), Instant.now());
  }

  /** A channel whose calls carry {@code authorization} (null: none). */
  private ManagedChannel channel(String authorization) {
    NettyChannelBuilder b = NettyChannelBuilder.forAddress("127.0.0.1", api.address().getPort()).usePlaintext();
    if (authorization != null) {
      Metadata headers = new Metadata();
      headers.put(ServiceAuthInterceptor.AUTHORIZATION, authorization);
      b.intercept(MetadataUtils.newAttachHeadersInterceptor(headers));
    }
    return b.build();
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    bare.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    node.close();
  }

  @Test
  void aReportWithAnOverlongDeviceIdOrPlatformIsRefused() {
    var stub = HistoryGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
    PlayEvent event = Frames.event(Business.ARTICLE, 9, 3_000, 60_000, System.currentTimeMillis());
    assertThatThrownBy(() -> stub.report(ReportRequest.newBuilder().setUid(42).setDeviceId("d".repeat(65))
        .addEvents(event).build())).isInstanceOf(StatusRuntimeException.class)
        .hasMessage("INVALID_ARGUMENT: device_id: 65 bytes (expected: at most 64)");
    assertThatThrownBy(() -> stub.report(ReportRequest.newBuilder().setUid(42).setDeviceId("bff")
        .setPlatform("w".repeat(33)).addEvents(event).build())).isInstanceOf(StatusRuntimeException.class)
        .hasMessage("INVALID_ARGUMENT: platform: 33 bytes (expected: at most 32)");
  }

  @Test
  void reportsAreWrittenThroughTheNodesWritePathAndReadBack() {
    var stub = HistoryGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
    PlayEvent event = Frames.event(Business.ARTICLE, 9, 3_000, 60_000, System.currentTimeMillis());
    ReportResponse first = stub.report(ReportRequest.newBuilder().setUid(42).setDeviceId("bff").setPlatform("web")
        .addEvents(event).build());
    assertThat(first.getFirstViewList()).containsExactly(true);
    assertThat(first.getFirstToday()).isTrue();

    List<HistoryRecord> records = stub.getProgress(GetProgressRequest.newBuilder().setUid(42)
        .addItems(ItemKey.newBuilder().setBusiness(Business.ARTICLE).setOid(9)).build()).getRecordsList();
    assertThat(records).singleElement().satisfies(r -> {
      assertThat(r.getProgressMs()).isEqualTo(3_000);
      assertThat(r.getDeviceId()).isEqualTo("bff");
    });
    assertThat(node.registry().get("playline.heartbeat.batch.heartbeats").summary().count()).isPositive();
  }

  @Test
  void itemStatsAreZerosBeforeAnyJobCountedAndValidated() {
    var stub = HistoryGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
    ItemKey item = ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(5).build();
    assertThat(stub.getItemStats(GetItemStatsRequest.newBuilder().addItems(item).addItems(item).build()).getStatsList())
        .containsExactly(ItemStats.newBuilder().setItem(item).build());
    assertThatThrownBy(() -> stub.getItemStats(GetItemStatsRequest.newBuilder()
        .addItems(ItemKey.newBuilder().setBusiness(Business.VIDEO)).build())).isInstanceOf(StatusRuntimeException.class)
        .hasMessage("INVALID_ARGUMENT: items[0].oid: 0 (expected: > 0)"); // the code once, not repeated
  }

  /** What a call with {@code authorization} gets: OK, or the status code and description. */
  private String callWith(String authorization) throws InterruptedException {
    ManagedChannel c = channel(authorization);
    try {
      HistoryGrpc.newBlockingStub(c).withDeadlineAfter(10, TimeUnit.SECONDS).getProgress(GetProgressRequest.newBuilder()
          .setUid(42).addItems(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(1)).build());
      return "OK";
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode() + ": " + e.getStatus().getDescription();
    } finally {
      c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void everyHistoryCallNeedsAServiceTokenAndHealthNeedsNone() throws Exception {
    Instant now = Instant.now();
    String other = "another-key-of-32-bytes-at-least-0123456789";
    JWTClaimsSet otherAudience = new JWTClaimsSet.Builder().subject("svc").audience("something-else")
        .expirationTime(Date.from(now.plusSeconds(60))).build();

    assertThat(callWith("Bearer " + ServiceTokens.mint(API_SECRET, "svc", Duration.ofMinutes(1), now))).isEqualTo("OK");
    assertThat(callWith(null)).startsWith("UNAUTHENTICATED: missing credentials");
    assertThat(callWith("Basic c3ZjOnB3")).startsWith("UNAUTHENTICATED: authorization is not a bearer token");
    assertThat(callWith("Bearer " + playerToken(TestApi.PLAYER_SECRET, 42, now)))
        .as("a player token").startsWith("UNAUTHENTICATED: not a service token: a player token (sub is a uid); "
            + "the internal API takes service tokens");
    assertThat(callWith("Bearer " + playerToken(API_SECRET, 42, now)))
        .as("a player-shaped token, even signed with the API key").startsWith("UNAUTHENTICATED: not a service token");
    assertThat(callWith("Bearer " + Hs256.sign(ApiAccess.SECRET_KEY, API_SECRET, otherAudience)))
        .startsWith("UNAUTHENTICATED: not a service token");
    assertThat(callWith("Bearer " + ServiceTokens.mint(other, "svc", Duration.ofMinutes(1), now)))
        .startsWith("UNAUTHENTICATED: bad token signature");
    assertThat(callWith("Bearer " + ServiceTokens.mint(API_SECRET, "svc", Duration.ofMinutes(1),
        now.minus(Duration.ofHours(1))))).startsWith("UNAUTHENTICATED: token expired");
    assertThat(callWith("Bearer not-a-jwt")).startsWith("UNAUTHENTICATED: malformed token");

    // Health stays open to load balancers; reflection (the schema) does not.
    assertThat(HealthGrpc.newBlockingStub(bare).withDeadlineAfter(10, TimeUnit.SECONDS)
        .check(HealthCheckRequest.getDefaultInstance()).getStatus()).isEqualTo(ServingStatus.SERVING);
    assertThatThrownBy(() -> services(bare)).hasRootCauseInstanceOf(StatusRuntimeException.class)
        .rootCause().hasMessageContaining("UNAUTHENTICATED");
    assertThat(node.registry().find("playline.api.auth.refused").counters().stream()
        .mapToDouble(c -> c.count()).sum()).isEqualTo(9);
  }

  @Test
  void servesHealthAndReflectionButNoPlayers() throws Exception {
    var health = HealthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    assertThat(health.check(HealthCheckRequest.getDefaultInstance()).getStatus()).isEqualTo(ServingStatus.SERVING);
    assertThat(health.check(HealthCheckRequest.newBuilder().setService(HistoryGrpc.SERVICE_NAME).build()).getStatus())
        .isEqualTo(ServingStatus.SERVING);
    assertThat(services()).contains(HistoryGrpc.SERVICE_NAME, "grpc.health.v1.Health");
    assertThat(node.readiness().snapshot())
        .containsOnlyKeys(ApiServer.READINESS_COMPONENT)
        .containsEntry(ApiServer.READINESS_COMPONENT, new Readiness.Component(true, true));
  }

  @Test
  void reflectionAnswersOverV1AlphaForOlderClientsWithATokenOnly() throws Exception {
    assertThat(servicesV1Alpha(channel)).contains(HistoryGrpc.SERVICE_NAME, "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection");
    assertThatThrownBy(() -> servicesV1Alpha(bare)).hasRootCauseInstanceOf(StatusRuntimeException.class)
        .rootCause().hasMessageContaining("UNAUTHENTICATED");
  }

  /** The services a {@code grpc.reflection.v1alpha} client (older grpcurl, Postman) lists. */
  private static List<String> servicesV1Alpha(ManagedChannel over) throws Exception {
    CompletableFuture<List<String>> services = new CompletableFuture<>();
    StreamObserver<io.grpc.reflection.v1alpha.ServerReflectionRequest> requests =
        io.grpc.reflection.v1alpha.ServerReflectionGrpc.newStub(over).serverReflectionInfo(
            new StreamObserver<io.grpc.reflection.v1alpha.ServerReflectionResponse>() {
              @Override
              public void onNext(io.grpc.reflection.v1alpha.ServerReflectionResponse r) {
                services.complete(r.getListServicesResponse().getServiceList().stream()
                    .map(io.grpc.reflection.v1alpha.ServiceResponse::getName).toList());
              }

              @Override
              public void onError(Throwable t) {
                services.completeExceptionally(t);
              }

              @Override
              public void onCompleted() {}
            });
    requests.onNext(io.grpc.reflection.v1alpha.ServerReflectionRequest.newBuilder().setListServices("*").build());
    List<String> names = services.get(10, TimeUnit.SECONDS);
    requests.onCompleted();
    return names;
  }

  @Test
  void refusesANodeWithoutQueries(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) {
    ConfigSource source = source(redis, kafka, hbase);
    try (Node withoutHBase = Node.builder(NodeConfig.from(source))
        .core(Node.historyCore(source, redis.redisUri(), kafka.bootstrapServers(), "api-test", null)).start()) {
      assertThatThrownBy(() -> ApiServer.attach(withoutHBase, new ApiAccess(API_SECRET, "127.0.0.1")))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("needs a node with queries");
    }
  }

  private List<String> services() throws Exception {
    return services(channel);
  }

  private List<String> services(ManagedChannel over) throws Exception {
    CompletableFuture<List<String>> services = new CompletableFuture<>();
    StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(over).serverReflectionInfo(
        new StreamObserver<ServerReflectionResponse>() {
          @Override
          public void onNext(ServerReflectionResponse r) {
            services.complete(r.getListServicesResponse().getServiceList().stream().map(ServiceResponse::getName).toList());
          }

          @Override
          public void onError(Throwable t) {
            services.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {}
        });
    requests.onNext(ServerReflectionRequest.newBuilder().setListServices("*").build());
    List<String> names = services.get(10, TimeUnit.SECONDS);
    requests.onCompleted();
    return names;
  }
}
