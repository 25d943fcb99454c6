package io.playline.gateway.session;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.util.Date;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The default {@link Authenticator}: an HS256 JWT signed with the configured secret, {@code sub}
 * = decimal uid, {@code exp} required, with a small allowed clock skew. Verification is a local
 * HMAC, so it answers at once on the calling thread. Thread-safe.
 */
public final class JwtAuthenticator implements Authenticator {
  private final MACVerifier verifier;
  private final Clock clock;
  private final Duration clockSkew;

  public JwtAuthenticator(String secret, Duration clockSkew, Clock clock) {
    JwtTokens.checkSecret(secret);
    try {
      this.verifier = new MACVerifier(secret.getBytes(StandardCharsets.UTF_8));
    } catch (JOSEException e) {
      throw new IllegalArgumentException("auth.secret: unusable for HS256 (" + e.getMessage() + ")", e);
    }
    this.clock = clock;
    this.clockSkew = clockSkew;
  }

  @Override
  public CompletionStage<Principal> authenticate(String token) {
    try {
      return CompletableFuture.completedFuture(verify(token));
    } catch (AuthenticationException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Verifies synchronously; throws {@link AuthenticationException} with a client-safe reason. */
  public Principal verify(String token) {
    if (token.isEmpty()) {
      throw new AuthenticationException("missing token");
    }
    SignedJWT jwt;
    JWTClaimsSet claims;
    try {
      jwt = SignedJWT.parse(token);
      claims = jwt.getJWTClaimsSet();
    } catch (ParseException e) {
      throw new AuthenticationException("malformed token");
    }
    if (!JWSAlgorithm.HS256.equals(jwt.getHeader().getAlgorithm())) {
      throw new AuthenticationException("unsupported token algorithm (expected HS256)");
    }
    try {
      if (!jwt.verify(verifier)) {
        throw new AuthenticationException("bad token signature");
      }
    } catch (JOSEException e) {
      throw new AuthenticationException("bad token signature");
    }
    Date exp = claims.getExpirationTime();
    if (exp == null) {
      throw new AuthenticationException("token has no exp claim");
    }
    if (exp.toInstant().plus(clockSkew).isBefore(clock.instant())) {
      throw new AuthenticationException("token expired");
    }
    Date nbf = claims.getNotBeforeTime();
    if (nbf != null && nbf.toInstant().minus(clockSkew).isAfter(clock.instant())) {
      throw new AuthenticationException("token not yet valid");
    }
    String sub = claims.getSubject();
    long uid;
    try {
      uid = sub == null ? -1 : Long.parseLong(sub);
    } catch (NumberFormatException e) {
      uid = -1;
    }
    if (uid <= 0) {
      throw new AuthenticationException("token sub is not a positive decimal uid");
    }
    return new Principal(uid);
  }
}
