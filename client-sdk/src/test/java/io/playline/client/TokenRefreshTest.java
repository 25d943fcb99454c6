package io.playline.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.gateway.session.JwtTokens;
import io.playline.proto.lite.v1.Business;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Short-lived tokens on a real gateway that closes expired connections: the client refreshes its
 * token on the same connection before each expiry, so it stays connected through many token
 * lifetimes, never reconnects and keeps being acked.
 */
@ExtendWith(RealRedisExtension.class)
class TokenRefreshTest {
  @ParameterizedTest
  @EnumSource(Wire.class)
  void theClientRefreshesItsTokenBeforeEachExpiryOnTheSameConnection(Wire transport, RedisNamespace ns)
      throws Exception {
    long uid = transport.ordinal() + 801;
    AtomicInteger minted = new AtomicInteger();
    Recorder events = new Recorder();
    try (GatewayFixture gateway = new GatewayFixture(ns, "auth.clock.skew", "0s", "auth.expiry.grace", "2s");
        AbstractPlaylineClient client = gateway.client(transport, uid, "tv")
            .tokenSupplier(() -> {
              minted.incrementAndGet();
              // exp has whole seconds: this token lives 2-3 s
              return CompletableFuture.completedFuture(
                  JwtTokens.mint(GatewayFixture.SECRET, uid, Duration.ofSeconds(3), Instant.now()));
            })
            .listener(events).build()) {
      events.awaitCount(ConnectionState.CONNECTED, 1);
      // Several token lifetimes pass; the client keeps reporting and being acked all along.
      AtomicInteger oid = new AtomicInteger();
      await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200)).until(() -> {
        client.report(Business.VIDEO, oid.incrementAndGet(), 1_000, 600_000);
        client.flush().get(10, TimeUnit.SECONDS);
        return client.stats().tokenRefreshes() >= 4;
      });
      assertThat(client.stats().connections()).isEqualTo(1);
      assertThat(events.errors).isEmpty();
      assertThat(minted.get()).isGreaterThanOrEqualTo(5);
      assertThat(gateway.node().counter("playline.auth", "result", "refreshed")).isGreaterThanOrEqualTo(4);
      assertThat(gateway.node().counter("playline.errors", "code", "TOKEN_EXPIRED")).isZero();
    }
  }
}
