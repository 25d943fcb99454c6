package io.playline.gateway.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.playline.node.auth.AuthenticationException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import org.junit.jupiter.api.Test;

class JwtAuthenticatorTest {
  private static final String SECRET = "0123456789abcdef0123456789abcdef-secret";
  private static final Instant NOW = Instant.parse("2026-11-21T12:00:00Z");
  private final JwtAuthenticator auth =
      new JwtAuthenticator(SECRET, Duration.ofSeconds(30), Clock.fixed(NOW, ZoneOffset.UTC));

  private static String sign(JWTClaimsSet claims, JWSAlgorithm alg, String secret) throws Exception {
    SignedJWT jwt = new SignedJWT(new JWSHeader(alg), claims);
    jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
    return jwt.serialize();
  }

  @Test
  void mintedTokenVerifiesToItsUid() {
    assertThat(auth.verify(JwtTokens.mint(SECRET, 42, Duration.ofMinutes(5), NOW)).uid()).isEqualTo(42);
  }

  @Test
  void expiredTokenIsRejectedOutsideTheSkew() {
    String token = JwtTokens.mint(SECRET, 42, Duration.ofMinutes(1), NOW.minus(Duration.ofMinutes(2)));
    assertThatThrownBy(() -> auth.verify(token)).isInstanceOf(AuthenticationException.class).hasMessage("token expired");
    String justExpired = JwtTokens.mint(SECRET, 42, Duration.ofMinutes(1), NOW.minus(Duration.ofSeconds(70)));
    assertThat(auth.verify(justExpired).uid()).isEqualTo(42);
  }

  @Test
  void tokenWithoutExpIsRejected() throws Exception {
    String token = sign(new JWTClaimsSet.Builder().subject("42").build(), JWSAlgorithm.HS256, SECRET);
    assertThatThrownBy(() -> auth.verify(token)).hasMessage("token has no exp claim");
  }

  @Test
  void subMustBeAPositiveDecimalUid() throws Exception {
    Date exp = Date.from(NOW.plusSeconds(60));
    for (String sub : new String[] {"abc", "-5", "0", ""}) {
      String token = sign(new JWTClaimsSet.Builder().subject(sub).expirationTime(exp).build(), JWSAlgorithm.HS256, SECRET);
      assertThatThrownBy(() -> auth.verify(token)).as(sub).hasMessage("token sub is not a positive decimal uid");
    }
  }

  @Test
  void otherAlgorithmsAndSecretsAreRejected() throws Exception {
    Date exp = Date.from(NOW.plusSeconds(60));
    JWTClaimsSet claims = new JWTClaimsSet.Builder().subject("42").expirationTime(exp).build();
    String hs512 = sign(claims, JWSAlgorithm.HS512, SECRET + SECRET);
    assertThatThrownBy(() -> auth.verify(hs512)).hasMessageContaining("algorithm");
    String other = sign(claims, JWSAlgorithm.HS256, "another-secret-another-secret-another-secret");
    assertThatThrownBy(() -> auth.verify(other)).hasMessage("bad token signature");
    assertThatThrownBy(() -> auth.verify("a.b.c")).hasMessage("malformed token");
    assertThatThrownBy(() -> auth.verify("")).hasMessage("missing token");
  }

  @Test
  void messagesNeverContainTheToken() {
    String token = JwtTokens.mint(SECRET, 42, Duration.ofMinutes(1), NOW.minus(Duration.ofHours(1)));
    assertThatThrownBy(() -> auth.verify(token)).satisfies(e -> assertThat(e.getMessage()).doesNotContain(token));
  }

  @Test
  void shortSecretsAreRefused() {
    assertThatThrownBy(() -> new JwtAuthenticator("short", Duration.ZERO, Clock.systemUTC()))
        .hasMessageContaining("at least 32 bytes");
  }
}
