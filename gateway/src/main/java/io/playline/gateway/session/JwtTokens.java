package io.playline.gateway.session;

import com.nimbusds.jwt.JWTClaimsSet;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;

/** Mints HS256 JWTs of the form the default {@link JwtAuthenticator} accepts ({@code sub} = uid). */
public final class JwtTokens {
  /** HS256 needs a key of at least 256 bits. */
  public static final int MIN_SECRET_BYTES = 32;

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
