package io.playline.roles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.playline.core.config.ConfigSource;
import io.playline.core.store.HistoryRowKeys;
import io.playline.embedded.EmbeddedKafka;
import io.playline.embedded.TestWorkDirs;
import io.playline.gateway.session.JwtTokens;
import io.playline.node.push.PushKeys;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.PlayEvent;
import io.playline.proto.v1.ReportRequest;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.TestCertificates;
import io.playline.testing.WsPlayerClient;
import io.playline.time.Time;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Each role as {@code bin/playline gateway|api|job} starts it, against external real Redis, Kafka
 * and HBase (the test JVM's), and the refusals of a role that lacks an address or a secret.
 */
@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class, RealHBaseExtension.class})
class RolesTest {
  static final String SECRET = "roles-test-secret-roles-test-secret!";
  private static final String API_SECRET = "roles-test-api-secret-roles-test-api-secret!";
  private final List<Role> started = new ArrayList<>();

  @AfterEach
  void stopRoles() {
    for (int i = started.size() - 1; i >= 0; i--) {
      started.get(i).close();
    }
  }

  /** A role's config against the test JVM's servers, isolated by the namespaces. */
  static ConfigSource config(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase, String nodeId) {
    Map<String, String> values = new HashMap<>();
    values.put("bind.host", "127.0.0.1");
    values.put("ws.port", "0");
    values.put("grpc.port", "0");
    values.put("api.port", "0");
    values.put("admin.port", "0");
    values.put("node.id", nodeId);
    values.put("auth.secret", SECRET);
    values.put("api.secret", API_SECRET);
    values.put("redis.uri", redis.redisUri());
    values.put("kafka.bootstrap.servers", kafka.bootstrapServers());
    values.put("hbase.zookeeper.quorum", "127.0.0.1");
    values.put("hbase.zookeeper.port", Integer.toString(hbase.server().zookeeperPort()));
    values.put("redis.key.prefix", redis.keyPrefix());
    values.put("kafka.topic.history", kafka.topic("history"));
    values.put("kafka.topic.first.today", kafka.topic("first-today"));
    values.put("kafka.topic.partitions", Integer.toString(KafkaNamespace.PARTITIONS));
    values.put("hbase.table", hbase.table("history").getNameAsString());
    values.put("job.group.id", kafka.topic("job"));
    values.put("writeback.flush.interval", "1s");
    values.put("push.lookup.cache", "0s");
    values.put("drain.grace", "0s");
    return ConfigSource.empty().with(values);
  }

  private <R extends Role> R started(R role) {
    started.add(role);
    return role;
  }

  private static RoleBackends backends(ConfigSource config, String role) {
    return RoleBackends.resolve(config, role, GatewayRole.NEEDS, null);
  }

  static WsPlayerClient player(GatewayRole gateway, long uid, String device) throws InterruptedException {
    WsPlayerClient c = WsPlayerClient.connect(gateway.edge().wsAddress().getPort());
    c.send(Frames.auth(1, JwtTokens.mint(SECRET, uid, Duration.ofMinutes(5), Instant.now()), device));
    ServerFrame ok = c.next();
    assertThat(ok.hasAuthOk()).as("auth_ok, got %s", ok).isTrue();
    return c;
  }

  static ServerFrame next(WsPlayerClient c, ServerFrame.BodyCase body) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      ServerFrame f = c.poll(500);
      if (f != null && f.getBodyCase() == body) {
        return f;
      }
    }
    throw new AssertionError("no " + body + " within 20 s");
  }

  @Test
  void gatewaysApiAndJobServeEveryFlowAgainstExternalBackends(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase) throws Exception {
    ConfigSource jobConfig = config(redis, kafka, hbase, "job-1");
    JobRole job = started(JobRole.start(jobConfig, backends(jobConfig, "job"), Time.SYSTEM));
    ConfigSource aConfig = config(redis, kafka, hbase, "gw-a");
    GatewayRole a = started(GatewayRole.start(aConfig, backends(aConfig, "gateway"), Time.SYSTEM));
    ConfigSource bConfig = config(redis, kafka, hbase, "gw-b");
    GatewayRole b = started(GatewayRole.start(bConfig, backends(bConfig, "gateway"), Time.SYSTEM));
    ConfigSource apiConfig = config(redis, kafka, hbase, "api-1");
    ApiRole api = started(ApiRole.start(apiConfig, backends(apiConfig, "api"), Time.SYSTEM));
    assertThat(a.addresses()).containsKeys("websocket", "grpc", "admin").doesNotContainKey("api");
    assertThat(api.addresses()).containsKeys("api", "admin").doesNotContainKey("websocket");

    long uid = 7001;
    long now = System.currentTimeMillis();
    // Backends call the api role.
    io.grpc.Metadata headers = new io.grpc.Metadata();
    headers.put(io.grpc.Metadata.Key.of("authorization", io.grpc.Metadata.ASCII_STRING_MARSHALLER),
        "Bearer " + io.playline.api.ServiceTokens.mint(API_SECRET, "roles-test", Duration.ofMinutes(5), Instant.now()));
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", api.api().address().getPort()).usePlaintext()
        .intercept(io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(headers)).build();
    try (WsPlayerClient phone = player(a, uid, "phone"); WsPlayerClient tv = player(b, uid, "tv")) {
      byte[] registry = new PushKeys(redis.keyPrefix()).nodes(uid);
      await("both nodes in the user's push registry").atMost(Duration.ofSeconds(20)).ignoreExceptions()
          .until(() -> a.edge().node().core().redis().shared().hgetall(registry).get(5, TimeUnit.SECONDS).size() == 2);
      phone.send(Frames.heartbeat(2, Frames.event(11, 42_000, now)));
      ServerFrame ack = next(phone, ServerFrame.BodyCase.HEARTBEAT_ACK);
      assertThat(ack.getHeartbeatAck().getFirstToday()).isTrue();
      // Cross-device push between nodes: the TV on gw-b hears that the phone on gw-a moved.
      assertThat(next(tv, ServerFrame.BodyCase.SYNC).getSync().getRecord().getProgressMs()).isEqualTo(42_000);
      // Queries over the stream on a gateway node (not UNAVAILABLE any more), on the other node.
      tv.send(Frames.progressQuery(3, Frames.video(11)));
      ServerFrame progress = next(tv, ServerFrame.BodyCase.PROGRESS);
      assertThat(progress.getProgress().getRecordsList()).extracting(HistoryRecord::getProgressMs).containsExactly(42_000L);
      // A backend's report through the api role (a node without players) reaches the devices on both gateway nodes.
      HistoryGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS).report(ReportRequest.newBuilder()
          .setUid(uid).setDeviceId("bff").addEvents(PlayEvent.newBuilder().setBusiness(Business.VIDEO).setOid(12)
              .setProgressMs(9_000).setDurationMs(600_000).setEventTimeMs(now)).build());
      assertThat(next(phone, ServerFrame.BodyCase.SYNC).getSync().getRecord().getOid()).isEqualTo(12);
      assertThat(next(tv, ServerFrame.BodyCase.SYNC).getSync().getRecord().getOid()).isEqualTo(12);
    } catch (RuntimeException | InterruptedException | AssertionError e) {
      channel.shutdownNow();
      throw e;
    }

    try {
      var records = HistoryGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS)
          .getProgress(GetProgressRequest.newBuilder().setUid(uid)
              .addItems(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(11)).build()).getRecordsList();
      assertThat(records).extracting(HistoryRecord::getDeviceId).containsExactly("phone");
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    // The job role persists gw-a's write-back to HBase.
    await("job persisted the record").atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
      try (Table table = hbase.connection().getTable(hbase.table("history"))) {
        Result row = table.get(new Get(HistoryRowKeys.row(uid)));
        return !row.isEmpty();
      }
    });
    assertThat(job.job().readiness()).isTrue();
  }

  @Test
  void aRoleWithoutBackendAddressesRefusesToStartNamingEachOne() {
    ConfigSource onlyRedis = ConfigSource.empty().with(Map.of("redis.uri", "redis://127.0.0.1:1"));
    assertThatThrownBy(() -> RoleBackends.resolve(onlyRedis, "api", ApiRole.NEEDS, null))
        .isInstanceOf(StartupException.class)
        .hasMessageNotContaining("redis.uri is not set")
        .hasMessageContaining("kafka.bootstrap.servers is not set");
  }

  @Test
  void aBackendsFileSuppliesTheAddressesConfigLeavesOut(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    Path file = dir.resolve("endpoints.json");
    Files.writeString(file, """
        {"redis": {"uri": "redis://10.0.0.1:7000", "cluster": true},
         "kafka": {"bootstrapServers": "10.0.0.2:9092"},
         "hbase": {"zookeeperQuorum": "10.0.0.3", "zookeeperPort": 2182}}""");
    RoleBackends b = RoleBackends.resolve(ConfigSource.empty().with(Map.of("kafka.bootstrap.servers", "k:1")), "gateway",
        GatewayRole.NEEDS, file);
    assertThat(b).isEqualTo(new RoleBackends("redis://10.0.0.1:7000", true, "k:1", "10.0.0.3", 2182, "/hbase"));
    assertThatThrownBy(() -> RoleBackends.resolve(ConfigSource.empty(), "gateway", GatewayRole.NEEDS,
        dir.resolve("missing.json"))).isInstanceOf(StartupException.class).hasMessageContaining("no such file");
    Path bad = dir.resolve("bad.json");
    Files.writeString(bad, """
        {"redis": {"uri": "redis://r:1", "cluster": "maybe"}, "kafka": {"bootstrapServers": "k:1"},
         "hbase": {"zookeeperQuorum": "z", "zookeeperPort": 2181}}""");
    assertThatThrownBy(() -> RoleBackends.resolve(ConfigSource.empty(), "gateway", GatewayRole.NEEDS, bad))
        .isInstanceOf(StartupException.class).hasMessageContaining(bad + ": field redis.cluster");
    // Values from the file go through the settings' range checks, as config values do.
    Files.writeString(bad, """
        {"redis": {"uri": "redis://r:1", "cluster": true}, "kafka": {"bootstrapServers": "k:1"},
         "hbase": {"zookeeperQuorum": "z", "zookeeperPort": 99999}}""");
    assertThatThrownBy(() -> RoleBackends.resolve(ConfigSource.empty(), "gateway", GatewayRole.NEEDS, bad))
        .isInstanceOf(io.playline.core.config.ConfigException.class).hasMessageContaining("hbase.zookeeper.port");
  }

  @Test
  void aGatewayWithoutAnAuthSecretRefusesToStartInsteadOfUsingTheDevelopmentSecret(RedisNamespace redis,
      KafkaNamespace kafka, HBaseNamespace hbase) {
    Map<String, String> values = new HashMap<>(Map.of("auth.secret", ""));
    ConfigSource config = config(redis, kafka, hbase, "gw-nosecret").with(values);
    assertThatThrownBy(() -> started(GatewayRole.start(config, backends(config, "gateway"), Time.SYSTEM)))
        .isInstanceOf(StartupException.class)
        .hasMessageContaining("auth.secret is not set")
        .hasMessageContaining("never fall back to the development secret");
  }

  @Test
  void anApiWithoutItsSecretOrWithThePlayerKeyRefusesToStart(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase) {
    ConfigSource unset = config(redis, kafka, hbase, "api-nosecret").with(Map.of("api.secret", ""));
    assertThatThrownBy(() -> started(ApiRole.start(unset, backends(unset, "api"), Time.SYSTEM)))
        .isInstanceOf(StartupException.class)
        .hasMessageContaining("api.secret is not set")
        .hasMessageContaining("PLAYLINE_API_SECRET");
    ConfigSource shared = config(redis, kafka, hbase, "api-sharedkey").with(Map.of("api.secret", SECRET));
    assertThatThrownBy(() -> started(ApiRole.start(shared, backends(shared, "api"), Time.SYSTEM)))
        .isInstanceOf(io.playline.core.config.ConfigException.class)
        .hasMessageContaining("the same key as auth.secret");
  }

  private static String plainJaas(String user, String password) {
    return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user + "\" password=\""
        + password + "\";";
  }

  /**
   * The roles against a Kafka whose only client listener is SASL_SSL, set up the way an operator
   * points them at a secured production cluster: topics created, write-back produced, consumed by
   * the job and persisted, all through the {@code kafka.common.*} pass-through. A wrong password
   * or a broker certificate from an untrusted authority stops a role at start with a message that
   * says what to check, instead of retrying forever.
   */
  @Test
  void rolesSpeakSaslSslToASecuredKafkaAndRefuseBadCredentialsClearly(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase, @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    TestCertificates.Issued ca = TestCertificates.authority(dir, "kafka-ca");
    TestCertificates.Issued brokerCert = TestCertificates.server(dir, "kafka-broker", ca);
    String password = "sasl-ssl-roles-test-password";
    EmbeddedKafka.Options options = new EmbeddedKafka.Options(TestWorkDirs.freshDir("kafka-sasl-ssl"), 0)
        .withSaslSsl(new EmbeddedKafka.SaslSsl(brokerCert.certFile(), brokerCert.keyFile(), "playline", password));
    try (EmbeddedKafka secured = EmbeddedKafka.start(options)) {
      Map<String, String> security = Map.of(
          "kafka.bootstrap.servers", secured.saslSslBootstrapServers(),
          "kafka.common.security.protocol", "SASL_SSL",
          "kafka.common.sasl.mechanism", "PLAIN",
          "kafka.common.sasl.jaas.config", plainJaas("playline", password),
          "kafka.common.ssl.truststore.type", "PEM",
          "kafka.common.ssl.truststore.location", ca.certFile().toString());
      try {
        ConfigSource jobConfig = config(redis, kafka, hbase, "job-sasl").with(security);
        JobRole job = started(JobRole.start(jobConfig, backends(jobConfig, "job"), Time.SYSTEM));
        ConfigSource gwConfig = config(redis, kafka, hbase, "gw-sasl").with(security);
        GatewayRole gateway = started(GatewayRole.start(gwConfig, backends(gwConfig, "gateway"), Time.SYSTEM));

        long uid = 7101;
        try (WsPlayerClient phone = player(gateway, uid, "phone")) {
          phone.send(Frames.heartbeat(2, Frames.event(21, 7_000, System.currentTimeMillis())));
          next(phone, ServerFrame.BodyCase.HEARTBEAT_ACK);
        }
        await("the job persisted the record it consumed over SASL_SSL").atMost(Duration.ofSeconds(60))
            .ignoreExceptions().until(() -> {
              try (Table table = hbase.connection().getTable(hbase.table("history"))) {
                return !table.get(new Get(HistoryRowKeys.row(uid))).isEmpty();
              }
            });
        assertThat(job.job().readiness()).isTrue();

        ConfigSource wrongPassword = config(redis, kafka, hbase, "gw-badpw").with(security)
            .with(Map.of("kafka.common.sasl.jaas.config", plainJaas("playline", "not-the-password")));
        assertThatThrownBy(() -> started(GatewayRole.start(wrongPassword, backends(wrongPassword, "gateway"),
            Time.SYSTEM)))
            .isInstanceOf(io.playline.core.config.ConfigException.class)
            .hasMessageContaining("refused the connection")
            .hasMessageContaining("SaslAuthenticationException")
            .hasMessageContaining("kafka.common.*")
            .hasMessageNotContaining("not-the-password");

        TestCertificates.Issued otherCa = TestCertificates.authority(dir, "other-ca");
        ConfigSource untrusted = config(redis, kafka, hbase, "job-untrusted").with(security)
            .with(Map.of("kafka.common.ssl.truststore.location", otherCa.certFile().toString()));
        assertThatThrownBy(() -> started(JobRole.start(untrusted, backends(untrusted, "job"), Time.SYSTEM)))
            .hasMessageContaining("refused the connection")
            .hasMessageContaining("SslAuthenticationException");
      } finally {
        stopRoles();
        started.clear();
      }
    }
  }
}
