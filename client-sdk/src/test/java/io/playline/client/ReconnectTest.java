package io.playline.client;

import io.playline.gateway.TestGateway;
import static org.assertj.core.api.Assertions.assertThat;

import io.playline.proto.lite.v1.Business;
import io.playline.proto.lite.v1.HistoryRecord;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The gateway goes away mid-stream and comes back on the same ports (a restarted node): the
 * client reconnects by itself, resumes its session without another identity check, echoes its
 * first-today date so the new node spends no Redis command on it, and no event is lost.
 */
@ExtendWith(RealRedisExtension.class)
class ReconnectTest {
  @ParameterizedTest
  @EnumSource(Wire.class)
  void gatewayRestartLosesNoEventAndResumesTheSession(Wire transport, RedisNamespace ns) throws Exception {
    long uid = 601;
    Recorder events = new Recorder();
    try (GatewayFixture gateway = new GatewayFixture(ns);
        AbstractPlaylineClient client = gateway.client(transport, uid, "tv").listener(events).build()) {
      events.awaitCount(ConnectionState.CONNECTED, 1);
      for (long oid = 1; oid <= 3; oid++) {
        client.report(Business.VIDEO, oid, oid * 1_000, 600_000);
      }
      client.flush().get(10, TimeUnit.SECONDS); // acked before the restart
      assertThat(events.firstTodays).hasSize(1);
      client.report(Business.VIDEO, 4, 4_000, 600_000); // maybe in flight when the node stops
      client.report(Business.VIDEO, 5, 5_000, 600_000);
      client.flush();
      int ws = gateway.node().server.wsAddress().getPort();
      int grpc = gateway.node().server.grpcAddress().getPort();

      gateway.stop();
      events.awaitCount(ConnectionState.RECONNECTING, 1);
      client.report(Business.VIDEO, 1, 11_000, 600_000); // reported while disconnected
      client.report(Business.VIDEO, 6, 6_000, 600_000);
      gateway.start(ws, grpc);
      events.awaitCount(ConnectionState.CONNECTED, 2);
      client.flush().get(10, TimeUnit.SECONDS);

      long[] latest = {11_000, 2_000, 3_000, 4_000, 5_000, 6_000};
      for (int i = 0; i < latest.length; i++) {
        HistoryRecord r = gateway.stored(uid, Business.VIDEO, i + 1);
        assertThat(r).as("item %s", i + 1).isNotNull();
        assertThat(r.getProgressMs()).as("item %s", i + 1).isEqualTo(latest[i]);
      }
      TestGateway restarted = gateway.node();
      assertThat(restarted.counter("playline.auth.identity.checks")).isZero();
      assertThat(restarted.counter("playline.auth", "result", "resumed")).isEqualTo(1);
      assertThat(gateway.tokenCalls).hasValue(1);
      assertThat(client.stats().sessionResumes()).isEqualTo(1);
      // The date echoed in Auth and every heartbeat: the new node never asked Redis about first-today.
      assertThat(restarted.counter("playline.first.today.redis.commands")).isZero();
      assertThat(restarted.firstTodays).isEmpty();
      assertThat(events.firstTodays).hasSize(1);
    }
  }
}
