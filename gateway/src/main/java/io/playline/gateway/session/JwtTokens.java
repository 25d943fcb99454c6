package io.playline.gateway.session;

import com.nimbusds.jwt.JWTClaimsSet;
import io.playline.node.auth.Hs256;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;

/** Mints HS256 JWTs of the form the default {@link JwtAuthenticator} accepts ({@code sub} = uid). */
public final class JwtTokens {
  private JwtTokens() {}

  /** A signed token for {@code uid}, issued at {@code now}, expiring after {@code ttl}. */
  public static String mint(String secret, long uid, Duration ttl, Instant now) {
    checkSecret(secret);
    if (uid <= 0) {
      throw new IllegalArgumentException("uid: " + uid + " (expected: > 0)");
    }
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl: " + ttl + " (expected: > 0)");
    }
    JWTClaimsSet claims = new JWTClaimsSet.Builder()
        .subject(Long.toString(uid))
        .issueTime(Date.from(now))
        .expirationTime(Date.from(now.plus(ttl)))
        .build();
    return Hs256.sign("auth.secret", secret, claims);
  }

  /** Rejects secrets too short for HS256. */
  public static void checkSecret(String secret) {
    Hs256.checkSecret("auth.secret", secret);
  }
}
