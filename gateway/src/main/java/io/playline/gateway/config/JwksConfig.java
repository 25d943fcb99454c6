package io.playline.gateway.config;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Player tokens from an identity provider: RS256 / ES256 JWTs verified against the provider's
 * published keys (a JWKS), besides the HS256 tokens signed with {@code auth.secret}. Each key's
 * default and range: docs/configuration.md.
 *
 * @param url where the key set is ({@code auth.jwks.url}: {@code https://…}, {@code http://…} or
 *     {@code file:…}); null = no JWKS, HS256 only
 * @param issuer the {@code iss} these tokens must carry ({@code auth.issuer}), or null for any
 * @param audience an {@code aud} these tokens must carry ({@code auth.audience}), or null for any
 * @param cacheTtl how long a fetched key set is used before it is fetched again ({@code
 *     auth.jwks.cache.ttl})
 * @param refetchMinInterval a token naming a key ({@code kid}) the cached set lacks makes the set
 *     be fetched again, at most once per this interval ({@code auth.jwks.refetch.min.interval})
 */
public record JwksConfig(@Nullable URL url, @Nullable String issuer, @Nullable String audience, Duration cacheTtl,
    Duration refetchMinInterval) {

  public JwksConfig {
    if (refetchMinInterval.compareTo(cacheTtl) >= 0) {
      throw new ConfigException("auth.jwks.refetch.min.interval: " + refetchMinInterval
          + " (expected: shorter than auth.jwks.cache.ttl " + cacheTtl + ")");
    }
  }

  /** Reads {@code auth.jwks.url}, {@code auth.issuer}, {@code auth.audience} and the JWKS timings. */
  public static JwksConfig from(ConfigSource c) {
    String url = AuthSettings.JWKS_URL.read(c).orElse("");
    String issuer = AuthSettings.ISSUER.read(c).orElse("");
    String audience = AuthSettings.AUDIENCE.read(c).orElse("");
    return new JwksConfig(url.isBlank() ? null : parse(url), issuer.isBlank() ? null : issuer,
        audience.isBlank() ? null : audience,
        AuthSettings.JWKS_CACHE_TTL.read(c),
        AuthSettings.JWKS_REFETCH_MIN_INTERVAL.read(c));
  }

  private static URL parse(String url) {
    try {
      URI uri = URI.create(url);
      String scheme = uri.getScheme();
      if (scheme == null || !(scheme.equals("https") || scheme.equals("http") || scheme.equals("file"))) {
        throw new IllegalArgumentException("scheme");
      }
      return uri.toURL();
    } catch (IllegalArgumentException | MalformedURLException e) {
      throw new ConfigException("auth.jwks.url: '" + url + "' (expected: an https://, http:// or file: URL)");
    }
  }

  /** Whether tokens from a JWKS are accepted. */
  public boolean enabled() {
    return url != null;
  }
}
