package io.playline.roles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.playline.core.config.ConfigSource;
import io.playline.gateway.session.JwtTokens;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.AdminMetrics;
import io.playline.testing.Frames;
import io.playline.testing.GrpcPlayerClient;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import io.playline.time.Time;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The per-user tombstone cap (issue 28) as a player meets it: a real gateway role on real Redis,
 * Kafka and HBase, deletes of never-played items over WebSocket and gRPC. Past {@code
 * history.tombstones.max.per.user} a delete is answered {@code RATE_LIMITED} with {@code
 * retry_after_ms} (the time until the oldest tombstone expires), nothing of it is applied, and the
 * connection stays open for the player's heartbeats.
 */
@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class, RealHBaseExtension.class})
class TombstoneCapOverThePlayerStreamTest {
  private static final long UID = 28_281;
  private GatewayRole gateway;

  @AfterEach
  void stop() {
    if (gateway != null) {
      gateway.close();
    }
  }

  @Test
  void aDeletePastTheTombstoneCapIsRateLimitedOnBothTransportsAndTheConnectionStaysOpen(RedisNamespace redis,
      KafkaNamespace kafka, HBaseNamespace hbase) throws Exception {
    ConfigSource config = RolesTest.config(redis, kafka, hbase, "gw-tombstones")
        .with(Map.of("history.tombstones.max.per.user", "16", "user.max.deletes.per.minute", "1000"));
    gateway = GatewayRole.start(config, RoleBackends.resolve(config, "gateway", GatewayRole.NEEDS, null), Time.SYSTEM);
    String token = JwtTokens.mint(RolesTest.SECRET, UID, Duration.ofMinutes(5), Instant.now());
    long now = System.currentTimeMillis();

    try (WsPlayerClient ws = WsPlayerClient.connect(gateway.edge().wsAddress().getPort())) {
      ws.send(Frames.auth(1, token, "phone"));
      assertThat(ws.next().hasAuthOk()).isTrue();
      // Sixteen never-played items (100..115): sixteen tombstones, the cap (its least).
      ws.send(Frames.delete(2, videos(100, 8)));
      assertThat(ws.next().hasDone()).isTrue();
      ws.send(Frames.delete(3, videos(108, 8)));
      assertThat(ws.next().hasDone()).isTrue();

      ws.send(Frames.delete(4, Frames.video(4)));
      ServerFrame refused = ws.next();
      assertThat(refused.getSeq()).isEqualTo(4);
      assertThat(refused.getError().getCode()).as("%s", refused).isEqualTo(Code.RATE_LIMITED);
      // The oldest tombstone lives history.tombstone.ttl (4 days by default): the wait is about that.
      assertThat(refused.getError().getRetryAfterMs()).isBetween((int) Duration.ofDays(4).minusMinutes(5).toMillis(),
          (int) Duration.ofDays(4).plusSeconds(1).toMillis());

      // The connection stays open: a heartbeat of the refused item is still acked and applied.
      ws.send(Frames.heartbeat(5, Frames.event(4, 10_000, now)));
      ServerFrame ack = ws.next();
      assertThat(ack.hasHeartbeatAck()).as("%s", ack).isTrue();
    }

    try (GrpcPlayerClient grpc = GrpcPlayerClient.connect(gateway.edge().grpcAddress().getPort())) {
      grpc.send(Frames.auth(1, token, "tv"));
      assertThat(grpc.next().hasAuthOk()).isTrue();
      grpc.send(Frames.delete(2, Frames.video(6)));
      ServerFrame refused = grpc.next();
      assertThat(refused.getError().getCode()).as("%s", refused).isEqualTo(Code.RATE_LIMITED);
      assertThat(refused.getError().getRetryAfterMs()).isPositive();
      grpc.send(Frames.keepAlive(3));
      assertThat(grpc.next().getSeq()).isEqualTo(3);
      grpc.complete();
    }

    // Nothing of the refused deletes was applied: the item played after its refused delete is there.
    try (WsPlayerClient ws = WsPlayerClient.connect(gateway.edge().wsAddress().getPort())) {
      ws.send(Frames.auth(1, token, "phone"));
      assertThat(ws.next().hasAuthOk()).isTrue();
      ws.send(Frames.progressQuery(2, Frames.video(4)));
      ServerFrame progress = ws.next();
      assertThat(progress.getProgress().getRecordsList()).as("%s", progress)
          .extracting(HistoryRecord::getOid, HistoryRecord::getProgressMs).containsExactly(tuple(4L, 10_000L));
    }
    String admin = gateway.addresses().get("admin");
    assertThat(AdminMetrics.gauge(admin, "playline_query_deletes_refused_total")).isEqualTo(2);
    assertThat(AdminMetrics.samples(admin, "playline_errors_total{code=\"RATE_LIMITED\"")).isEqualTo(2);
  }

  private static ItemKey[] videos(long firstOid, int count) {
    return LongStream.range(firstOid, firstOid + count).mapToObj(Frames::video).toArray(ItemKey[]::new);
  }
}
