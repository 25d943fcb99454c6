package io.playline.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jwt.JWTClaimsSet;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.api.config.ApiConfig;
import io.playline.node.auth.AuthenticationException;
import io.playline.node.auth.Hs256;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import org.junit.jupiter.api.Test;

class ServiceAuthInterceptorTest {
  private static final String SECRET = "service-auth-interceptor-test-0123456789abcdef";
  private static final Duration SKEW = Duration.ofSeconds(30);
  private final Instant start = Instant.parse("2026-11-26T06:00:00Z");
  private final MutableClock clock = new MutableClock(start);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ServiceAuthInterceptor auth = new ServiceAuthInterceptor(SECRET, SKEW, clock, registry, false);

  private double verifications() {
    return registry.get("playline.api.auth.verifications").counter().count();
  }

  @Test
  void aTokenIsCheckedInFullOnceThenRecognisedUntilItExpires() {
    String token = ServiceTokens.mint(SECRET, "recs", Duration.ofMinutes(10), start);

    assertThat(auth.authenticate("Bearer " + token)).isEqualTo("recs");
    assertThat(auth.authenticate("bearer  " + token)).isEqualTo("recs");
    assertThat(verifications()).isEqualTo(1);

    clock.now = start.plus(Duration.ofMinutes(10)).plus(SKEW);
    assertThat(auth.authenticate("Bearer " + token)).as("within the skew").isEqualTo("recs");
    clock.now = clock.now.plusMillis(1);
    assertThatThrownBy(() -> auth.authenticate("Bearer " + token)).isInstanceOf(AuthenticationException.class)
        .hasMessage("token expired");
    assertThat(verifications()).isEqualTo(2);
  }

  @Test
  void onlyTheExactTokenIsRecognised() {
    String token = ServiceTokens.mint(SECRET, "recs", Duration.ofMinutes(10), start);
    auth.authenticate("Bearer " + token);
    // One character in the middle of the signature (the last may only carry padding bits).
    int at = token.lastIndexOf('.') + 10;
    String forged = token.substring(0, at) + (token.charAt(at) == 'A' ? 'B' : 'A') + token.substring(at + 1);

    assertThatThrownBy(() -> auth.authenticate("Bearer " + forged)).isInstanceOf(AuthenticationException.class)
        .hasMessage("bad token signature");
    assertThatThrownBy(() -> auth.authenticate("Bearer " + forged)).isInstanceOf(AuthenticationException.class);
    assertThat(verifications()).as("refused tokens are never kept").isEqualTo(3);
  }

  @Test
  void aTokenNotYetValidIsNotRecognisedEarlyFromTheCache() {
    JWTClaimsSet claims = new JWTClaimsSet.Builder().subject("later").audience(ServiceTokens.AUDIENCE)
        .notBeforeTime(Date.from(start.plus(Duration.ofMinutes(5))))
        .expirationTime(Date.from(start.plus(Duration.ofMinutes(20)))).build();
    String token = Hs256.sign(ApiConfig.SECRET_KEY, SECRET, claims);
    assertThatThrownBy(() -> auth.authenticate("Bearer " + token)).hasMessage("token not yet valid");

    clock.now = start.plus(Duration.ofMinutes(5));
    assertThat(auth.authenticate("Bearer " + token)).isEqualTo("later");
    clock.now = start.plus(Duration.ofMinutes(1)); // the clock stepped back
    assertThatThrownBy(() -> auth.authenticate("Bearer " + token)).hasMessage("token not yet valid");
  }

  @Test
  void aPlayerTokenIsToldItIsOneWhateverKeySignedIt() {
    JWTClaimsSet player = new JWTClaimsSet.Builder().subject("42").expirationTime(Date.from(start.plusSeconds(60)))
        .build();
    String expected = "not a service token: a player token (sub is a uid); the internal API takes service tokens "
        + "(aud playline-api, signed with api.secret)";
    assertThatThrownBy(() -> auth.authenticate("Bearer " + Hs256.sign("auth.secret",
        "the-player-token-key-0123456789abcdefgh", player))).isInstanceOf(AuthenticationException.class)
        .hasMessage(expected);
    assertThatThrownBy(() -> auth.authenticate("Bearer " + Hs256.sign(ApiConfig.SECRET_KEY, SECRET, player)))
        .hasMessage(expected);
    JWTClaimsSet otherService = new JWTClaimsSet.Builder().subject("recs").audience("elsewhere")
        .expirationTime(Date.from(start.plusSeconds(60))).build();
    assertThatThrownBy(() -> auth.authenticate("Bearer " + Hs256.sign(ApiConfig.SECRET_KEY, SECRET, otherService)))
        .hasMessage("not a service token (aud must name playline-api)");
    String forged = ServiceTokens.mint("another-key-of-32-bytes-at-least-0123456789", "recs", Duration.ofMinutes(1),
        start);
    assertThatThrownBy(() -> auth.authenticate("Bearer " + forged)).hasMessage("bad token signature");
  }

  @Test
  void theCacheStaysBounded() {
    for (int i = 0; i < ServiceAuthInterceptor.MAX_VERIFIED_TOKENS + 10; i++) {
      auth.authenticate("Bearer " + ServiceTokens.mint(SECRET, "svc-" + i, Duration.ofMinutes(10), start));
      assertThat(auth.verifiedTokens()).isLessThanOrEqualTo(ServiceAuthInterceptor.MAX_VERIFIED_TOKENS);
    }
  }

  private static final class MutableClock extends Clock {
    volatile Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
