package io.playline.roles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.core.HistoryCore;
import io.playline.core.config.ConfigSource;
import io.playline.core.store.HBaseClient;
import io.playline.core.store.HistoryRowKeys;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import io.playline.time.Time;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The quiet node: a gateway role serving heartbeats runs no HBase client and says so in {@code
 * /readyz}; the first read that falls through Redis to HBase opens the client, and from then on
 * {@code /readyz} reports HBase's real state.
 */
@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class, RealHBaseExtension.class})
class LazyHBaseGatewayTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void aGatewayServingHeartbeatsRunsNoHBaseClientUntilAColdReadNeedsIt(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase) throws Exception {
    ConfigSource config = RolesTest.config(redis, kafka, hbase, "gw-quiet");
    TableName table = hbase.table("history");
    createHistoryTable(hbase, table);
    long coldUid = 7202;
    HistoryRecord stored = HistoryRecord.newBuilder().setUid(coldUid).setBusiness(Business.VIDEO).setOid(31)
        .setProgressMs(5_000).setDurationMs(600_000).setViewTimeMs(System.currentTimeMillis() - 60_000)
        .setDeviceId("tv").setPlatform("web").build();
    try (Table t = hbase.connection().getTable(table)) {
      t.put(new Put(HistoryRowKeys.row(coldUid)).addColumn(Bytes.toBytes("h"),
          HistoryRowKeys.qualifier(stored.getBusiness(), stored.getOid()), stored.getViewTimeMs(), stored.toByteArray()));
    }

    try (GatewayRole gateway = GatewayRole.start(config,
        RoleBackends.resolve(config, "gateway", GatewayRole.NEEDS, null), Time.SYSTEM)) {
      HistoryCore core = gateway.edge().node().historyCore();
      InetSocketAddress admin = gateway.edge().node().adminAddress();
      try (WsPlayerClient phone = RolesTest.player(gateway, 7201, "phone")) {
        for (int seq = 2; seq < 6; seq++) {
          phone.send(Frames.heartbeat(seq, Frames.event(11, seq * 1_000L, System.currentTimeMillis())));
          RolesTest.next(phone, ServerFrame.BodyCase.HEARTBEAT_ACK);
        }
      }
      assertThat(core.hbase().state()).as("heartbeats need no HBase").isEqualTo(HBaseClient.State.IDLE);
      assertThat(get(admin, "/readyz"))
          .contains("hbase: ready (client not started: no request has needed HBase yet) (reported, not required)");
      assertThat(get(admin, "/metrics")).contains("playline_hbase_client_running 0.0")
          .contains("playline_hbase_client_connects_total{outcome=\"ok\"} 0.0");

      // A user with nothing in Redis pages their history: the read falls through to HBase and opens the client.
      try (WsPlayerClient tv = RolesTest.player(gateway, coldUid, "tv")) {
        tv.send(Frames.historyQuery(2, 10));
        ServerFrame page = RolesTest.next(tv, ServerFrame.BodyCase.HISTORY_PAGE);
        assertThat(page.getHistoryPage().getRecordsList()).containsExactly(stored);
      }
      assertThat(core.hbase().state()).isEqualTo(HBaseClient.State.RUNNING);
      assertThat(get(admin, "/metrics")).contains("playline_hbase_client_running 1.0")
          .contains("playline_hbase_client_connects_total{outcome=\"ok\"} 1.0");
      await("the next probe reports HBase's real state").atMost(WAIT).untilAsserted(() ->
          assertThat(get(admin, "/readyz")).contains("hbase: ready (reported, not required)")
              .doesNotContain("client not started"));
    }
  }

  private static void createHistoryTable(HBaseNamespace hbase, TableName table) throws IOException {
    try (Admin admin = hbase.connection().getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(table)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes("h")).build()).build());
    }
  }

  private String get(InetSocketAddress admin, String path) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.getPort() + path))
        .timeout(Duration.ofSeconds(10)).build();
    return http.send(request, HttpResponse.BodyHandlers.ofString()).body();
  }
}
