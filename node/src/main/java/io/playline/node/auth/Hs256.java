package io.playline.node.auth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.util.Date;

/**
 * HS256 JWT signing and verification shared by player tokens (the gateway's {@code
 * JwtAuthenticator} and {@code JwtTokens}) and the internal API's service tokens: the algorithm pinned to HS256, the signature,
 * {@code exp} required, {@code exp}/{@code nbf} checked with a clock skew. Claims beyond that are
 * the caller's. Thread-safe.
 */
public final class Hs256 {
  /** HS256 needs a key of at least 256 bits. */
  public static final int MIN_SECRET_BYTES = 32;

  private final MACVerifier verifier;
  private final Clock clock;
  private final Duration clockSkew;

  /**
   * @param key names the setting the secret came from, for error messages (e.g. {@code auth.secret})
   * @throws IllegalArgumentException when the secret is shorter than {@link #MIN_SECRET_BYTES}
   */
  public Hs256(String key, String secret, Duration clockSkew, Clock clock) {
    checkSecret(key, secret);
    try {
      this.verifier = new MACVerifier(secret.getBytes(StandardCharsets.UTF_8));
    } catch (JOSEException e) {
      throw new IllegalArgumentException(key + ": unusable for HS256 (" + e.getMessage() + ")", e);
    }
    this.clock = clock;
    this.clockSkew = clockSkew;
  }

  /** Rejects secrets too short for HS256, naming {@code key}. */
  public static void checkSecret(String key, String secret) {
    int length = secret.getBytes(StandardCharsets.UTF_8).length;
    if (length < MIN_SECRET_BYTES) {
      throw new IllegalArgumentException(key + ": " + length + " bytes (expected: at least "
          + MIN_SECRET_BYTES + " bytes for HS256)");
    }
  }

  /** Signs {@code claims} with {@code secret} (HS256). */
  public static String sign(String key, String secret, JWTClaimsSet claims) {
    checkSecret(key, secret);
    SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
    try {
      jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
    } catch (JOSEException e) {
      throw new IllegalStateException("cannot sign token: " + e.getMessage(), e);
    }
    return jwt.serialize();
  }

  /**
   * The claims of {@code token} once its algorithm, signature and times check out; throws {@link
   * AuthenticationException} with a client-safe reason otherwise.
   */
  public JWTClaimsSet verify(String token) {
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
    return claims;
  }
}
