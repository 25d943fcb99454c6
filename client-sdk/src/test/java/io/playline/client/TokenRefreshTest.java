package io.playline.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.gateway.session.JwtTokens;
import io.playline.proto.lite.v1.Business;
import io.playline.testing.ManualTime;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Short-lived tokens on a real gateway that closes expired connections: the client refreshes its
 * token on the same connection before each expiry, so it stays connected through many token
 * lifetimes, never reconnects and keeps being acked. The gateway and the client run on one {@link
 * ManualTime}: the lifetimes pass as the test moves it, a step at a time, never by waiting.
 */
@ExtendWith(RealRedisExtension.class)
class TokenRefreshTest {
  private static final Duration STEP = Duration.ofMillis(500);
  /** Twenty seconds of the manual time: more than six 3 s token lifetimes. */
  private static final int MAX_STEPS = 40;

  @ParameterizedTest
  @EnumSource(Wire.class)
  void theClientRefreshesItsTokenBeforeEachExpiryOnTheSameConnection(Wire transport, RedisNamespace ns)
      throws Exception {
    long uid = transport.ordinal() + 801;
    AtomicInteger minted = new AtomicInteger();
    Recorder events = new Recorder();
    // Starts on a whole second, as token expiries (JWT exp) are.
    ManualTime time = new ManualTime(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    ManualClientTime clientTime = new ManualClientTime(time);
    try (GatewayFixture gateway = new GatewayFixture(ns, time, "auth.clock.skew", "0s", "auth.expiry.grace", "2s");
        AbstractPlaylineClient client = clientTime.on(gateway.client(transport, uid, "tv"))
            .tokenSupplier(() -> {
              minted.incrementAndGet();
              // exp has whole seconds: this token lives 2-3 s of the manual time
              return CompletableFuture.completedFuture(
                  JwtTokens.mint(GatewayFixture.SECRET, uid, Duration.ofSeconds(3), time.instant()));
            })
            .listener(events).build()) {
      events.awaitCount(ConnectionState.CONNECTED, 1);
      // Several token lifetimes pass; the client keeps reporting and being acked all along.
      int oid = 0;
      for (int step = 0; client.stats().tokenRefreshes() < 4; step++) {
        assertThat(step).as("steps of %s before the fourth refresh", STEP).isLessThan(MAX_STEPS);
        client.report(Business.VIDEO, ++oid, 1_000, 600_000);
        CompletableFuture<Void> acked = client.flush();
        // Real I/O: the heartbeat's ack, or the error of a connection closed for an expired token.
        await("ack of heartbeat " + oid).atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(2)).until(() -> acked.isDone() || !events.errors.isEmpty());
        assertThat(events.errors).as("after %s steps of %s", step, STEP).isEmpty();
        time.advance(STEP);
        clientTime.drain(); // a refresh the step made due has been sent
      }
      assertThat(client.stats().connections()).isEqualTo(1);
      assertThat(events.errors).isEmpty();
      assertThat(minted.get()).isGreaterThanOrEqualTo(5);
      await("the gateway counted the refreshes").atMost(Duration.ofSeconds(10))
          .until(() -> gateway.node().counter("playline.auth", "result", "refreshed") >= 4);
      assertThat(gateway.node().counter("playline.errors", "code", "TOKEN_EXPIRED")).isZero();
    }
  }
}
