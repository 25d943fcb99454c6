package io.playline.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.playline.core.config.ConfigSource;
import io.playline.core.store.HistoryRowKeys;
import io.playline.core.store.RedisKeys;
import io.playline.gateway.session.JwtTokens;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.FirstTodayEvent;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.HeartbeatAck;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ListHistoryRequest;
import io.playline.proto.v1.ServerFrame;
import io.playline.roles.Secrets;
import io.playline.roles.StartupException;
import io.playline.roles.endpoints.Endpoints;
import io.playline.testing.Frames;
import io.playline.testing.GrpcPlayerClient;
import io.playline.testing.WsPlayerClient;
import io.playline.time.Time;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/**
 * The whole system in one process, as {@code bin/playline standalone} runs it: embedded real
 * Redis, Kafka and HBase, every role, a real WebSocket player.
 */
class StandaloneEndToEndTest {
  private static final byte[] FAMILY = {'h'};
  private final long now = System.currentTimeMillis();

  private static ConfigSource config(Path dataDir, String... extra) {
    Map<String, String> values = new HashMap<>(Map.of(
        "data.dir", dataDir.toString(),
        "ws.port", "0", "grpc.port", "0", "api.port", "0", "admin.port", "0",
        "writeback.flush.interval", "1s", "recovery.interval", "1s"));
    for (int i = 0; i < extra.length; i += 2) {
      values.put(extra[i], extra[i + 1]);
    }
    return ConfigSource.empty().with(values);
  }

  private static Path freshDataDir() throws Exception {
    Path dir = Path.of("target", "e2e-" + UUID.randomUUID()).toAbsolutePath();
    Files.createDirectories(dir);
    return dir;
  }

  private HeartbeatAck report(StandaloneLauncher launcher, long uid, long oid, long progress) throws Exception {
    try (WsPlayerClient player = WsPlayerClient.connect(launcher.edge().wsAddress().getPort())) {
      String token = JwtTokens.mint(Secrets.DEV_SECRET, uid, Duration.ofMinutes(5), Instant.now());
      player.send(Frames.auth(1, token, "phone"));
      assertThat(player.next().getAuthOk().getUid()).isEqualTo(uid);
      player.send(Frames.heartbeat(2, Frames.event(Business.VIDEO, oid, progress, 60_000, now)));
      return player.next().getHeartbeatAck();
    }
  }

  private HeartbeatAck reportOverGrpc(StandaloneLauncher launcher, long uid, long oid, long progress) throws Exception {
    try (GrpcPlayerClient player = GrpcPlayerClient.connect(launcher.edge().grpcAddress().getPort())) {
      String token = JwtTokens.mint(Secrets.DEV_SECRET, uid, Duration.ofMinutes(5), Instant.now());
      player.send(Frames.auth(1, token, "tv"));
      assertThat(player.next().getAuthOk().getUid()).isEqualTo(uid);
      player.send(Frames.heartbeat(2, Frames.event(Business.VIDEO, oid, progress, 60_000, now)));
      HeartbeatAck ack = player.next().getHeartbeatAck();
      player.complete();
      return ack;
    }
  }

  /** The first-today events on the topic, read from the beginning. */
  private static List<FirstTodayEvent> firstTodayEvents(String bootstrap) throws Exception {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, "e2e-" + UUID.randomUUID());
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<FirstTodayEvent> events = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of("playline.first-today.v1"));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (events.isEmpty() && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          events.add(FirstTodayEvent.parseFrom(r.value()));
        }
      }
    }
    return events;
  }

  private void queriesOverTheStreamTheApiAndTheCli(StandaloneLauncher launcher) throws Exception {
    ItemKey video7 = Frames.video(7);
    ItemKey video8 = Frames.video(8);
    try (WsPlayerClient player = WsPlayerClient.connect(launcher.edge().wsAddress().getPort())) {
      String token = JwtTokens.mint(Secrets.DEV_SECRET, 42, Duration.ofMinutes(5), Instant.now());
      player.send(Frames.auth(1, token, "e2e"));
      player.next();
      player.send(Frames.progressQuery(5, video7, video8));
      ServerFrame progress = player.next();
      assertThat(progress.getSeq()).isEqualTo(5);
      // Only uid 42's own item: uid 43's VIDEO:8 is not visible over uid 42's stream.
      assertThat(progress.getProgress().getRecordsList()).extracting(HistoryRecord::getOid).containsExactly(7L);
      player.send(Frames.historyQuery(6, 10));
      assertThat(player.next().getHistoryPage().getRecordsList()).extracting(HistoryRecord::getUid).containsOnly(42L);
    }
    int api = launcher.api().address().getPort();
    io.grpc.ManagedChannel channel = io.grpc.netty.NettyChannelBuilder.forAddress("127.0.0.1", api).usePlaintext().build();
    try {
      // The internal API takes service tokens only (standalone: signed with its development key).
      assertThatThrownBy(() -> HistoryGrpc.newBlockingStub(channel).getProgress(GetProgressRequest.newBuilder()
          .setUid(43).addItems(video8).build())).isInstanceOf(io.grpc.StatusRuntimeException.class)
          .hasMessageStartingWith("UNAUTHENTICATED");
      io.grpc.Metadata headers = new io.grpc.Metadata();
      headers.put(io.grpc.Metadata.Key.of("authorization", io.grpc.Metadata.ASCII_STRING_MARSHALLER), "Bearer "
          + io.playline.api.ServiceTokens.mint(Secrets.DEV_API_SECRET, "e2e", Duration.ofMinutes(5), Instant.now()));
      HistoryGrpc.HistoryBlockingStub stub = HistoryGrpc.newBlockingStub(channel)
          .withInterceptors(io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(headers));
      assertThat(stub.getProgress(GetProgressRequest.newBuilder().setUid(43).addItems(video8).build()).getRecords(0)
          .getProgressMs()).isEqualTo(5_678);
      assertThat(stub.listHistory(ListHistoryRequest.newBuilder().setUid(42).setLimit(5).build()).getRecordsList())
          .extracting(HistoryRecord::getOid).contains(7L);
      java.io.StringWriter out = new java.io.StringWriter();
      java.io.StringWriter err = new java.io.StringWriter();
      String apiAddress = "127.0.0.1:" + api;
      assertThat(PlaylineCli.run(new java.io.PrintWriter(out), new java.io.PrintWriter(err),
          "history", "list", "--uid", "43", "--api", apiAddress)).as(err.toString()).isZero();
      assertThat(out.toString()).contains("VIDEO").contains("tv");
      assertThat(PlaylineCli.run(new java.io.PrintWriter(out), new java.io.PrintWriter(err),
          "history", "list", "--uid", "43", "--limit", "500", "--api", apiAddress)).isEqualTo(2);
      assertThat(err.toString()).contains("INVALID_ARGUMENT");
      assertThat(PlaylineCli.run(new java.io.PrintWriter(out), new java.io.PrintWriter(err),
          "history", "delete", "--uid", "43", "--item", "VIDEO:8", "--api", apiAddress)).isZero();
      assertThat(stub.getProgress(GetProgressRequest.newBuilder().setUid(43).addItems(video8).build()).getRecordsList())
          .as("deleted through the CLI").isEmpty();
    } finally {
      channel.shutdownNow().awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
    }
  }

  /**
   * With no address option, the operator commands talk to the node on {@code --data-dir}, as its
   * endpoints.json says: its ports are random, so a command that took the default ports would fail
   * to connect, or reach another node there.
   */
  private void theToolsFindThisNodeByItsDataDir(StandaloneLauncher launcher, Path dataDir) throws Exception {
    String dir = dataDir.toString();
    String file = dataDir.resolve(Endpoints.FILE_NAME).toString();
    java.io.StringWriter out = new java.io.StringWriter();
    java.io.StringWriter err = new java.io.StringWriter();
    assertThat(PlaylineCli.run(new java.io.PrintWriter(out), new java.io.PrintWriter(err),
        "play", "--uid", "44", "--oid", "9", "--progress", "12s", "--data-dir", dir)).as(err.toString()).isZero();
    assertThat(err.toString()).contains("the gateway's WebSocket at 127.0.0.1:" + launcher.edge().wsAddress().getPort()
        + " (" + file);
    out.getBuffer().setLength(0);
    assertThat(PlaylineCli.run(new java.io.PrintWriter(out), new java.io.PrintWriter(err),
        "history", "progress", "--uid", "44", "--item", "VIDEO:9", "--json", "--data-dir", dir)).as(err.toString())
        .isZero();
    assertThat(out.toString()).contains("\"progressMs\": \"12000\"");
    assertThat(err.toString()).contains("the internal API at 127.0.0.1:" + launcher.api().address().getPort() + " ("
        + file);
    out.getBuffer().setLength(0);
    String admin = "http://127.0.0.1:" + launcher.node().adminAddress().getPort();
    assertThat(PlaylineCli.run(new java.io.PrintWriter(out), new java.io.PrintWriter(err),
        "status", "--interval", "100ms", "--data-dir", dir)).as(err.toString()).isZero();
    assertThat(out.toString()).startsWith("node " + admin + ": ready");
    assertThat(err.toString()).contains("the node's admin port at " + admin + " (" + file);
  }

  private static Configuration hbaseConf(Endpoints endpoints) {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", endpoints.hbaseZookeeperQuorum().orElseThrow());
    conf.setInt("hbase.zookeeper.property.clientPort", endpoints.hbaseZookeeperPort().orElseThrow());
    return conf;
  }

  /** Waits until HBase holds the item ({@code present}) or no longer does; a table not created yet holds nothing. */
  private static void awaitCell(Connection hbase, long uid, long oid, boolean present) {
    await().atMost(Duration.ofSeconds(90)).ignoreException(TableNotFoundException.class)
        .until(() -> (cell(hbase, uid, oid) != null) == present);
  }

  private static Cell cell(Connection hbase, long uid, long oid) throws Exception {
    try (Table table = hbase.getTable(TableName.valueOf("playline:history"))) {
      Result r = table.get(new Get(HistoryRowKeys.row(uid)));
      return r.getColumnLatestCell(FAMILY, HistoryRowKeys.qualifier(Business.VIDEO, oid));
    }
  }

  private static Endpoints endpoints(Path dataDir) throws Exception {
    return Endpoints.read(dataDir.resolve(Endpoints.FILE_NAME));
  }

  @Test
  void heartbeatReachesHBaseAndEverythingSurvivesARestart() throws Exception {
    Path dataDir = freshDataDir();
    StandaloneLauncher launcher = StandaloneLauncher.start(config(dataDir), Time.SYSTEM);
    try {
      Endpoints endpoints = endpoints(dataDir);
      int admin = launcher.node().adminAddress().getPort();
      HttpResponse<String> ready = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin + "/readyz")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(ready.statusCode()).isEqualTo(200);
      assertThat(ready.body()).startsWith("ready").contains("job: ready").contains("hbase: ready");
      // bind.host unset: every port the node listens on is on loopback, out of other machines' reach.
      List<java.net.InetSocketAddress> listening = new ArrayList<>(List.of(launcher.edge().wsAddress(),
          launcher.edge().grpcAddress(), launcher.node().adminAddress(), launcher.api().address()));
      if (launcher.api().httpAddress() != null) {
        listening.add(launcher.api().httpAddress());
      }
      assertThat(listening).allSatisfy(a -> assertThat(a.getAddress().isLoopbackAddress()).as("%s", a).isTrue());

      HeartbeatAck ack = report(launcher, 42, 7, 1_234);
      assertThat(ack.getFirstToday()).isTrue();
      assertThat(ack.getFirstViewList()).containsExactly(true);
      assertThat(reportOverGrpc(launcher, 43, 8, 5_678).getFirstViewList()).containsExactly(true);

      try (Connection hbase = ConnectionFactory.createConnection(hbaseConf(endpoints))) {
        awaitCell(hbase, 42, 7, true);
        Cell cell = cell(hbase, 42, 7);
        assertThat(cell.getTimestamp()).isEqualTo(now);
        assertThat(HistoryRecord.parseFrom(CellUtil.cloneValue(cell)).getProgressMs()).isEqualTo(1_234);
        awaitCell(hbase, 43, 8, true);
        assertThat(HistoryRecord.parseFrom(CellUtil.cloneValue(cell(hbase, 43, 8))).getDeviceId()).isEqualTo("tv");
      }
      assertThat(firstTodayEvents(endpoints.kafkaBootstrapServers().orElseThrow()))
          .anySatisfy(e -> {
            assertThat(e.getUid()).isEqualTo(42);
            assertThat(e.getDeviceId()).isEqualTo("phone");
            assertThat(e.getDay()).isEqualTo(ack.getFlagDate());
          });
      try (Admin kafka = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
          endpoints.kafkaBootstrapServers().orElseThrow()))) {
        assertThat(kafka.describeCluster().nodes().get()).hasSize(1);
      }
      queriesOverTheStreamTheApiAndTheCli(launcher);
      theToolsFindThisNodeByItsDataDir(launcher, dataDir);
      assertThatThrownBy(() -> StandaloneLauncher.start(config(dataDir), Time.SYSTEM))
          .isInstanceOf(StartupException.class).hasMessageContaining("already running");
    } finally {
      launcher.close();
    }
    assertThat(dataDir.resolve("endpoints.json")).doesNotExist();

    StandaloneLauncher again = StandaloneLauncher.start(config(dataDir), Time.SYSTEM);
    try {
      Endpoints endpoints = endpoints(dataDir);
      try (Connection hbase = ConnectionFactory.createConnection(hbaseConf(endpoints))) {
        assertThat(cell(hbase, 42, 7)).as("HBase cell after restart").isNotNull();
      }
      RedisClient client = RedisClient.create(endpoints.redisUri().orElseThrow());
      try (StatefulRedisConnection<String, String> redis = client.connect()) {
        assertThat(redis.sync().hexists("pl:h:{42}:r", new String(RedisKeys.member(Business.VIDEO, 7))))
            .as("Redis record after restart (AOF)").isTrue();
      } finally {
        client.shutdown();
      }
      try (Admin kafka = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
          endpoints.kafkaBootstrapServers().orElseThrow()))) {
        assertThat(kafka.listConsumerGroupOffsets("playline-job").partitionsToOffsetAndMetadata().get())
            .as("committed job offsets after restart").isNotEmpty();
      }
      assertThat(report(again, 42, 8, 1).getFirstToday()).as("first-today is remembered across restarts").isFalse();
    } finally {
      again.close();
    }
  }

  @Test
  void ackedRecordReachesHBaseEvenWhenTheWriteBackIsLostBeforeItsFlush() throws Exception {
    Path dataDir = freshDataDir();
    StandaloneLauncher launcher = StandaloneLauncher.start(config(dataDir,
        "writeback.flush.interval", "20s", "recovery.age", "20s"), Time.SYSTEM);
    try {
      assertThat(report(launcher, 77, 9, 4_321).getFirstViewList()).containsExactly(true);
      // What a kill -9 of the process holding the aggregation does to it: memory gone, nothing flushed.
      launcher.core().aggregator().abandon();
      assertThat(launcher.registry().find("playline.kafka.records.sent").counters())
          .allSatisfy(c -> assertThat(c.count()).isZero());
      try (Connection hbase = ConnectionFactory.createConnection(hbaseConf(endpoints(dataDir)))) {
        awaitCell(hbase, 77, 9, true);
        assertThat(HistoryRecord.parseFrom(CellUtil.cloneValue(cell(hbase, 77, 9))).getProgressMs()).isEqualTo(4_321);
      }
    } finally {
      launcher.close();
    }
  }

  @Test
  void ackedDeleteReachesHBaseEvenWhenTheWriteBackIsLostBeforeItsFlush() throws Exception {
    Path dataDir = freshDataDir();
    StandaloneLauncher launcher = StandaloneLauncher.start(config(dataDir,
        "writeback.flush.interval", "20s", "recovery.age", "20s"), Time.SYSTEM);
    try (Connection hbase = ConnectionFactory.createConnection(hbaseConf(endpoints(dataDir)))) {
      report(launcher, 78, 9, 1_000);
      awaitCell(hbase, 78, 9, true);
      double sent = recordsSent(launcher);
      launcher.core().history().delete(78, List.of(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(9).build()))
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
      // A kill -9 within the flush window: the delete dies with the write-back's memory.
      launcher.core().aggregator().abandon();
      assertThat(recordsSent(launcher)).as("no flush carried the delete").isEqualTo(sent);
      awaitCell(hbase, 78, 9, false);
    } finally {
      launcher.close();
    }
  }

  private static double recordsSent(StandaloneLauncher launcher) {
    return launcher.registry().find("playline.kafka.records.sent").counters().stream().mapToDouble(c -> c.count()).sum();
  }
}
