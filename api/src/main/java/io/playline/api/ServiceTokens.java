package io.playline.api;

import com.nimbusds.jwt.JWTClaimsSet;
import io.playline.api.config.ApiConfig;
import io.playline.node.auth.Hs256;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;

/**
 * Service tokens for the internal API: HS256 JWTs signed with {@code api.secret}, {@code aud} =
 * {@value #AUDIENCE}, {@code sub} = the calling service's name, {@code exp} required. A player
 * token (no such audience, another key) is never one.
 */
public final class ServiceTokens {
  /** The audience every service token must name. */
  public static final String AUDIENCE = "playline-api";
  /** Longest service name accepted in {@code sub}. */
  public static final int MAX_SERVICE_NAME = 128;

  private ServiceTokens() {}

  /** A token for {@code service}, issued at {@code now}, expiring after {@code ttl}. */
  public static String mint(String apiSecret, String service, Duration ttl, Instant now) {
    checkService(service);
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl: " + ttl + " (expected: > 0)");
    }
    JWTClaimsSet claims = new JWTClaimsSet.Builder()
        .subject(service)
        .audience(AUDIENCE)
        .issueTime(Date.from(now))
        .expirationTime(Date.from(now.plus(ttl)))
        .build();
    return Hs256.sign(ApiConfig.SECRET_KEY, apiSecret, claims);
  }

  /** Rejects a blank or overlong service name. */
  static void checkService(String service) {
    if (service.isBlank() || service.length() > MAX_SERVICE_NAME) {
      throw new IllegalArgumentException("service: '" + service + "' (expected: 1-" + MAX_SERVICE_NAME
          + " characters naming the calling service)");
    }
  }
}
