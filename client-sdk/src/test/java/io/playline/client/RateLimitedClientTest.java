package io.playline.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.proto.lite.v1.Business;
import io.playline.proto.lite.v1.Error.Code;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.time.Duration;
import java.util.stream.LongStream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A client over its user's events budget (a tiny {@code user.max.events.per.second}) against a
 * real gateway and Redis: it holds the refused events for the gateway's retry_after_ms instead of
 * resending them at every flush, and every event is acked exactly once in the end.
 */
@ExtendWith(RealRedisExtension.class)
class RateLimitedClientTest {
  private static final int EVENTS = 60;

  @ParameterizedTest
  @EnumSource(Wire.class)
  void refusedEventsWaitRetryAfterThenAreAckedOnceWithoutHammeringTheGateway(Wire transport,
      RedisNamespace ns) throws Exception {
    long uid = 611 + transport.ordinal();
    Recorder events = new Recorder();
    try (GatewayFixture gateway = new GatewayFixture(ns, "user.max.events.per.second", "5");
        AbstractPlaylineClient client = gateway.client(transport, uid, "phone").maxEventsPerHeartbeat(5).listener(events)
            .build()) {
      events.awaitCount(ConnectionState.CONNECTED, 1);
      for (long oid = 1; oid <= EVENTS; oid++) {
        client.report(Business.VIDEO, oid, 1_000, 600_000);
      }
      // A chatty app flushes every 100 ms: the first 50 events fill the user's bucket, the rest are refused.
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
        client.flush();
        return client.stats().eventsAcked() >= EVENTS;
      });

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
      assertThat(gateway.node().counter("playline.user.budget.refusals", "budget", "events")).isLessThanOrEqualTo(8);
      assertThat(gateway.node().counter("playline.user.budget.closes", "budget", "events")).isZero();
      assertThat(events.count(ConnectionState.RECONNECTING)).isZero();
      assertThat(client.stats().eventsDropped()).isZero();
    }
  }
}
