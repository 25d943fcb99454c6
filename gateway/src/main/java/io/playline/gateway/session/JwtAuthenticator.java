package io.playline.gateway.session;

import com.nimbusds.jwt.JWTClaimsSet;
import io.playline.node.auth.AuthenticationException;
import io.playline.node.auth.Hs256;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The default {@link Authenticator}: an HS256 JWT signed with the configured secret, {@code sub}
 * = decimal uid, {@code exp} required (it becomes the connection's expiry), with a small allowed clock skew. Verification is a local
 * HMAC, so it answers at once on the calling thread. Thread-safe.
 */
public final class JwtAuthenticator implements Authenticator {
  private final Hs256 jwt;

  public JwtAuthenticator(String secret, Duration clockSkew, Clock clock) {
    this.jwt = new Hs256("auth.secret", secret, clockSkew, clock);
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
    JWTClaimsSet claims = jwt.verify(token);
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
    java.util.Date exp = claims.getExpirationTime(); // required by Hs256
    return new Principal(uid, exp == null ? Principal.NEVER : Math.max(1, exp.getTime()));
  }
}
