package io.playline.gateway.config;

import io.playline.core.config.Setting;
import io.playline.core.config.SettingsCatalogue;
import io.playline.node.auth.TokenKeySettings;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * How the gateway verifies player tokens, and how long a session lives; the clock skew tolerated
 * in a token is in {@code io.playline.node.RequestSettings}.
 */
public final class AuthSettings {
  public static final Setting<Optional<String>> SECRET = TokenKeySettings.PLAYER_SECRET;
  public static final Setting<Optional<String>> JWKS_URL = Setting.optional("auth.jwks.url", "unset",
      "an identity provider's key set (`https://…`, `http://…` or `file:…`): RS256 / ES256 player tokens are "
          + "verified against it (by `kid`), besides HS256 tokens signed with `auth.secret` "
          + "([security](security.md#identity-providers-jwks))");
  public static final Setting<Optional<String>> ISSUER = Setting.optional("auth.issuer", "unset",
      "when set, provider tokens must carry this `iss`");
  public static final Setting<Optional<String>> AUDIENCE = Setting.optional("auth.audience", "unset",
      "when set, provider tokens must carry this `aud`");
  public static final Setting<Duration> JWKS_CACHE_TTL = Setting.duration("auth.jwks.cache.ttl", Duration.ofMinutes(5),
      Duration.ofSeconds(1), Duration.ofDays(1), "how long a fetched key set is used before it is fetched again");
  public static final Setting<Duration> JWKS_REFETCH_MIN_INTERVAL = Setting.duration("auth.jwks.refetch.min.interval",
      Duration.ofSeconds(30), Duration.ofMillis(10), Duration.ofHours(1), "a token naming a `kid` the cached set "
          + "lacks (a rotation) fetches the set again at once, at most once per this interval")
      .rangeNote("< `auth.jwks.cache.ttl`");
  public static final Setting<Duration> TIMEOUT = Setting.duration("auth.timeout", Duration.ofSeconds(10),
      Duration.ofMillis(100), Duration.ofMinutes(5),
      "time from connecting to a valid `Auth`: past it `AUTH_TIMEOUT`, close 4007");
  public static final Setting<Duration> EXPIRY_GRACE = Setting.duration("auth.expiry.grace", Duration.ofSeconds(30),
      Duration.ZERO, Duration.ofHours(1), "a connection whose token expired this long ago without a `Refresh` is "
          + "closed with `TOKEN_EXPIRED` (4014)");
  public static final Setting<Duration> SESSION_TTL = Setting.duration("session.ttl", Duration.ofHours(1),
      Duration.ofSeconds(10), Duration.ofDays(30),
      "life of a session without activity, refreshed lazily (at most every ttl/3)");
  public static final Setting<Duration> SESSION_MAX_AGE = Setting.duration("session.max.age", Duration.ofDays(7),
      Duration.ofSeconds(1), Duration.ofDays(365), "a session is resumable at most this long after its first token "
          + "was verified, however often it is used or refreshed (and never past its newest token's expiry)");
  public static final Setting<Integer> SESSION_MAX_PER_USER = Setting.intValue("session.max.per.user", 32, 1, 10_000,
      "resumable sessions stored per user: a new session of a device replaces that device's, past the cap the "
          + "device whose newest session was created least recently loses it (counted in `playline_sessions_dropped_total`; "
          + "its client resumes with a token instead)");

  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("Player authentication and sessions",
      List.of(SECRET, JWKS_URL, ISSUER, AUDIENCE, JWKS_CACHE_TTL, JWKS_REFETCH_MIN_INTERVAL, TIMEOUT,
          EXPIRY_GRACE, SESSION_TTL, SESSION_MAX_AGE, SESSION_MAX_PER_USER));

  private AuthSettings() {}
}
