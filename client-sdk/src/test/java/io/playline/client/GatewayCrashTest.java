package io.playline.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.proto.lite.v1.Business;
import io.playline.proto.lite.v1.HistoryRecord;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The gateway process dies with {@code kill -9} while heartbeats are in flight (it was frozen
 * first, so they were sent and certainly never acked): the client notices the dead connection,
 * reconnects to the node that takes its place, resumes its session there and resends what the
 * dead node never acknowledged, so nothing reported is lost.
 */
@ExtendWith(RealRedisExtension.class)
class GatewayCrashTest {
  @ParameterizedTest
  @EnumSource(Wire.class)
  void eventsInFlightWhenTheGatewayIsKilledAreResentToItsSuccessor(Wire wire, RedisNamespace ns, @TempDir Path dir)
      throws Exception {
    long uid = 1_101 + wire.ordinal();
    Recorder events = new Recorder();
    try (GatewayFixture gateway = new GatewayFixture(ns); GatewayProcess doomed = GatewayProcess.start(ns, dir);
        AbstractPlaylineClient client = gateway.client(wire, uid, "phone").endpoint("127.0.0.1", doomed.port(wire))
            .listener(events).build()) {
      events.awaitCount(ConnectionState.CONNECTED, 1);
      client.report(Business.VIDEO, 1, 1_000, 600_000);
      client.flush().get(10, TimeUnit.SECONDS);

      doomed.freeze();
      client.report(Business.VIDEO, 1, 2_000, 600_000);
      client.report(Business.VIDEO, 2, 3_000, 600_000);
      client.flush(); // both go out in a heartbeat the frozen node never answers
      client.report(Business.VIDEO, 3, 4_000, 600_000);
      // Reports and flushes run on the client's loop in call order: once the third report is
      // counted, the heartbeat carrying the first two is in flight.
      await().atMost(Duration.ofSeconds(10)).until(() -> client.stats().eventsReported() == 4);
      doomed.kill();
      events.awaitCount(ConnectionState.RECONNECTING, 1);

      gateway.stop();
      gateway.start(doomed.wsPort(), doomed.grpcPort()); // the node's replacement, on its ports
      events.awaitCount(ConnectionState.CONNECTED, 2);
      client.flush().get(10, TimeUnit.SECONDS);

      long[] latest = {2_000, 3_000, 4_000};
      for (int i = 0; i < latest.length; i++) {
        HistoryRecord r = gateway.stored(uid, Business.VIDEO, i + 1);
        assertThat(r).as("item %s", i + 1).isNotNull();
        assertThat(r.getProgressMs()).as("item %s", i + 1).isEqualTo(latest[i]);
      }
      assertThat(client.stats().eventsResent()).as("events resent after the kill").isGreaterThanOrEqualTo(2);
      assertThat(gateway.node().counter("playline.auth", "result", "resumed")).isEqualTo(1);
      assertThat(gateway.tokenCalls).hasValue(1);
    }
  }
}
