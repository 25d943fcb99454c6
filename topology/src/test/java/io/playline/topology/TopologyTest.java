package io.playline.topology;

import static io.playline.topology.SharedTopology.API_SECRET;
import static io.playline.topology.SharedTopology.FAMILY;
import static io.playline.topology.SharedTopology.SECRET;
import static io.playline.topology.SharedTopology.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.playline.api.ServiceTokens;
import io.playline.core.store.HistoryRowKeys;
import io.playline.gateway.session.JwtTokens;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ListHistoryRequest;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import io.playline.testing.WsPlayerClient;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The production topology on this machine, every part a real process ({@link SharedTopology}):
 * the player and backend flows through every node, and the jobs splitting the work. The fault
 * suite runs on the same topology after these: {@link TopologyFaultsTest}.
 */
@Order(1)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(SharedTopology.Resolver.class)
class TopologyTest {
  private static LocalTopology topology;
  private static Connection hbase;

  @BeforeAll
  static void share(SharedTopology shared) {
    topology = shared.topology();
    hbase = shared.hbase();
  }

  private static WsPlayerClient player(RoleProcess gateway, long uid, String device) throws InterruptedException {
    WsPlayerClient c = WsPlayerClient.connect(gateway.port("websocket"));
    c.send(Frames.auth(1, JwtTokens.mint(SECRET, uid, Duration.ofMinutes(10), Instant.now()), device));
    assertThat(c.next().hasAuthOk()).isTrue();
    return c;
  }

  private static ServerFrame next(WsPlayerClient c, ServerFrame.BodyCase body) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      ServerFrame f = c.poll(500);
      if (f != null && f.getBodyCase() == body) {
        return f;
      }
    }
    throw new AssertionError("no " + body + " within 30 s");
  }

  private static ClientFrame heartbeat(long seq, long oid, long progress) {
    return Frames.heartbeat(seq, Frames.event(oid, progress, System.currentTimeMillis()));
  }

  private static HistoryGrpc.HistoryBlockingStub api(ManagedChannel channel) {
    return HistoryGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  private static ManagedChannel apiChannel() {
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER),
        "Bearer " + ServiceTokens.mint(API_SECRET, "topology-test", Duration.ofHours(2), Instant.now()));
    return NettyChannelBuilder.forAddress("127.0.0.1", topology.apis().get(0).port("api")).usePlaintext()
        .intercept(MetadataUtils.newAttachHeadersInterceptor(headers)).build();
  }

  /** The record HBase holds for the item, or null. */
  private static HistoryRecord inHBase(long uid, long oid) throws IOException {
    try (Table table = hbase.getTable(TableName.valueOf("playline:history"))) {
      Result r = table.get(new Get(HistoryRowKeys.row(uid)));
      byte[] v = r.getValue(FAMILY, HistoryRowKeys.qualifier(Business.VIDEO, oid));
      return v == null ? null : HistoryRecord.parseFrom(v);
    }
  }

  @Test
  @Order(1)
  void playerAndBackendFlowsWorkThroughEveryGatewayAndTheApi() throws Exception {
    RoleProcess a = topology.gateways().get(0);
    RoleProcess b = topology.gateways().get(1);
    long uid = 5_000_001;
    try (WsPlayerClient phone = player(a, uid, "phone"); WsPlayerClient tv = player(b, uid, "tv")) {
      phone.send(heartbeat(2, 7, 30_000));
      assertThat(next(phone, ServerFrame.BodyCase.HEARTBEAT_ACK).getHeartbeatAck().getFirstToday()).isTrue();
      // The TV on the other node hears of the phone's progress (the push registry may need a moment
      // to list both nodes: the phone's later heartbeats carry it on).
      long progress = 30_000;
      ServerFrame sync = null;
      for (long seq = 3; sync == null && seq < 40; seq++) {
        sync = tv.poll(500);
        if (sync != null && !sync.hasSync()) {
          sync = null;
        }
        if (sync == null) {
          progress += 1_000;
          phone.send(heartbeat(seq, 7, progress));
        }
      }
      assertThat(sync).as("a ProgressSync on the other gateway node").isNotNull();
      assertThat(sync.getSync().getRecord().getOid()).isEqualTo(7);
      // First-today once per user per day across nodes.
      tv.send(heartbeat(2, 8, 5_000));
      assertThat(next(tv, ServerFrame.BodyCase.HEARTBEAT_ACK).getHeartbeatAck().getFirstToday()).isFalse();
      // Queries over the stream, on each node.
      tv.send(Frames.progressQuery(3, Frames.video(7)));
      assertThat(next(tv, ServerFrame.BodyCase.PROGRESS).getProgress().getRecords(0).getDeviceId()).isEqualTo("phone");
      phone.send(Frames.historyQuery(100, 10));
      assertThat(next(phone, ServerFrame.BodyCase.HISTORY_PAGE).getHistoryPage().getRecordsList())
          .extracting(HistoryRecord::getOid).containsExactly(8L, 7L);
    }
    // Backends call the api process.
    ManagedChannel channel = apiChannel();
    try {
      assertThat(api(channel).getProgress(GetProgressRequest.newBuilder().setUid(uid)
          .addItems(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(8)).build()).getRecords(0).getProgressMs())
          .isEqualTo(5_000);
      assertThat(api(channel).listHistory(ListHistoryRequest.newBuilder().setUid(uid).setLimit(10).build())
          .getRecordsCount()).isEqualTo(2);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    // The jobs persist both items to HBase.
    await("both items in HBase").atMost(WAIT).ignoreExceptions()
        .until(() -> inHBase(uid, 7) != null && inHBase(uid, 8) != null);
  }

  @Test
  @Order(2)
  void twoJobsSplitThePartitionsAndTheRecoveryShards() {
    RoleProcess one = topology.jobs().get(0);
    RoleProcess two = topology.jobs().get(1);
    await("partitions and shards split").atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
      double p1 = Metrics.gauge(one, "playline_job_partitions_assigned");
      double p2 = Metrics.gauge(two, "playline_job_partitions_assigned");
      double s1 = Metrics.gauge(one, "playline_job_recovery_shards_owned");
      double s2 = Metrics.gauge(two, "playline_job_recovery_shards_owned");
      assertThat(p1 + p2).isEqualTo(12);
      assertThat(p1).isPositive();
      assertThat(p2).isPositive();
      assertThat(s1 + s2).isEqualTo(16);
      assertThat(s1).isPositive();
      assertThat(s2).isPositive();
    });
  }
}
