package io.playline.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.proto.lite.v1.Business;
import io.playline.proto.lite.v1.Error.Code;
import io.playline.testing.ManualTime;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A client over its user's events budget (a tiny {@code user.max.events.per.second}) against a
 * real gateway and Redis: it holds the refused events for the gateway's retry_after_ms instead of
 * resending them at every flush, and every event is acked exactly once in the end. The gateway
 * and the client run on one {@link ManualTime}: the budget refills, and the client's wait passes,
 * as the test moves it, never while it waits.
 */
@ExtendWith(RealRedisExtension.class)
class RateLimitedClientTest {
  private static final int EVENTS = 60;
  private static final Duration STEP = Duration.ofMillis(100);
  /** Ten seconds of the manual time: the last refused events are due within about three. */
  private static final int MAX_STEPS = 100;

  @ParameterizedTest
  @EnumSource(Wire.class)
  void refusedEventsWaitRetryAfterThenAreAckedOnceWithoutHammeringTheGateway(Wire transport,
      RedisNamespace ns) throws Exception {
    long uid = 611 + transport.ordinal();
    Recorder events = new Recorder();
    ManualTime time = new ManualTime();
    ManualClientTime clientTime = new ManualClientTime(time);
    try (GatewayFixture gateway = new GatewayFixture(ns, time, "user.max.events.per.second", "5");
        AbstractPlaylineClient client = clientTime.on(gateway.client(transport, uid, "phone"))
            .maxEventsPerHeartbeat(5).listener(events).build()) {
      events.awaitCount(ConnectionState.CONNECTED, 1);
      for (long oid = 1; oid <= EVENTS; oid++) {
        client.report(Business.VIDEO, oid, 1_000, 600_000);
      }
      // A chatty app flushes every 100 ms: the first 50 events fill the user's bucket, the rest are refused.
      for (int step = 0; client.stats().eventsAcked() < EVENTS; step++) {
        assertThat(step).as("steps of %s before every event was acked", STEP).isLessThan(MAX_STEPS);
        client.flush();
        clientTime.drain(); // the flush and every timer the last step made due have sent their heartbeats
        // Real I/O: every heartbeat the client sent was answered before the time moves (else the
        // gateway could read a heartbeat seconds of manual time late, its bucket refilled meanwhile).
        await("answers to the heartbeats").atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(2)).until(() -> client.heartbeatsAnswered().get(5, TimeUnit.SECONDS));
        time.advance(STEP);
      }
      // The last ack completed the loop's condition from the loop thread; the listener has it too.
      await("every ack told").atMost(Duration.ofSeconds(10))
          .until(() -> events.acks.stream().mapToInt(a -> a.events().size()).sum() >= EVENTS);

      assertThat(events.acks).flatExtracting(Ack::events).extracting(e -> e.event().getOid())
          .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(1, EVENTS).boxed().toList());
      for (long oid = 1; oid <= EVENTS; oid++) {
        assertThat(gateway.stored(uid, Business.VIDEO, oid)).as("item %s", oid).isNotNull();
      }
      assertThat(events.errors).isNotEmpty().allSatisfy(e -> {
        assertThat(e.code()).isEqualTo(Code.RATE_LIMITED);
        assertThat(e.retryAfterMs()).isBetween(1L, 1_000L);
      });
      // Flushes during the wait sent nothing: a handful of refusals, never closed for ignoring them.
      assertThat(gateway.node().counter("playline.user.budget.refusals", "budget", "events")).isBetween(1.0, 8.0);
      assertThat(gateway.node().counter("playline.user.budget.closes", "budget", "events")).isZero();
      assertThat(events.count(ConnectionState.RECONNECTING)).isZero();
      assertThat(client.stats().eventsDropped()).isZero();
    }
  }
}
