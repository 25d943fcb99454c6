package io.playline.gateway.session;

import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.util.Base64URL;
import io.playline.node.auth.AuthenticationException;
import java.text.ParseException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * The default {@link Authenticator} of a node: picks the verifier by the token's {@code alg}:
 * HS256 tokens go to the {@code auth.secret} check ({@link JwtAuthenticator}), RS256 / ES256 tokens
 * to the identity provider's key set ({@link JwksAuthenticator}) when {@code auth.jwks.url} is set.
 * A node with a key set and no {@code auth.secret} refuses HS256 tokens. Thread-safe.
 */
public final class TokenAuthenticator implements Authenticator, AutoCloseable {
  private final @Nullable JwtAuthenticator hs256;
  private final @Nullable JwksAuthenticator jwks;

  /** At least one of the two verifiers. */
  public TokenAuthenticator(@Nullable JwtAuthenticator hs256, @Nullable JwksAuthenticator jwks) {
    if (hs256 == null && jwks == null) {
      throw new IllegalArgumentException("no token verifier: neither auth.secret nor auth.jwks.url");
    }
    this.hs256 = hs256;
    this.jwks = jwks;
  }

  @Override
  public CompletionStage<Principal> authenticate(String token) {
    String alg = algorithm(token);
    if (jwks != null && ("RS256".equals(alg) || "ES256".equals(alg))) {
      return jwks.authenticate(token);
    }
    if (hs256 == null) {
      return CompletableFuture.failedFuture(new AuthenticationException("token algorithm " + (alg == null ? "(unreadable)" : alg)
          + " is not accepted: this server verifies RS256 and ES256 tokens of its identity provider only"));
    }
    if (alg == null || "HS256".equals(alg) || jwks == null) {
      return hs256.authenticate(token); // refuses what is not HS256 with its own reason
    }
    return CompletableFuture.failedFuture(
        new AuthenticationException("unsupported token algorithm " + alg + " (expected HS256, RS256 or ES256)"));
  }

  /** The JWS header's alg, or null when the token has no parsable header. */
  private static @Nullable String algorithm(String token) {
    int dot = token.indexOf('.');
    if (dot <= 0) {
      return null;
    }
    try {
      return JWSHeader.parse(new Base64URL(token.substring(0, dot))).getAlgorithm().getName();
    } catch (ParseException | RuntimeException e) {
      return null;
    }
  }

  @Override
  public void close() {
    if (jwks != null) {
      jwks.close();
    }
  }
}
