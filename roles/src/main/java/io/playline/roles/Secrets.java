package io.playline.roles;

import io.playline.api.config.ApiSettings;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.Setting;
import io.playline.node.auth.TokenKeySettings;
import java.util.Optional;

/** Resolves the token signing secret: {@code auth.secret}, or a fixed development secret where allowed. */
public final class Secrets {
  /** Publicly known, so only standalone (a developer's laptop) falls back to it, and says so. */
  public static final String DEV_SECRET = "playline-dev-secret-do-not-use-in-production";
  /** The internal API's counterpart of {@link #DEV_SECRET}: standalone only, and it says so. */
  public static final String DEV_API_SECRET = "playline-dev-api-secret-do-not-use-in-production";

  private Secrets() {}

  public record Resolved(String secret, boolean dev) {}

  public static Resolved resolve(ConfigSource config, boolean allowDevSecret) {
    return resolve(config, TokenKeySettings.PLAYER_SECRET, allowDevSecret, DEV_SECRET, "auth.secret is not set: roles other than "
        + "standalone never fall back to the development secret; set PLAYLINE_AUTH_SECRET (at least 32 bytes) to the "
        + "key your identity service signs player tokens with, or PLAYLINE_AUTH_JWKS_URL to its published keys");
  }

  /**
   * Resolves {@code api.secret}, the key service tokens for the internal API are signed with; only
   * standalone ({@code allowDevSecret}) falls back to {@link #DEV_API_SECRET}.
   */
  public static Resolved resolveApi(ConfigSource config, boolean allowDevSecret) {
    return resolve(config, ApiSettings.SECRET, allowDevSecret, DEV_API_SECRET, "api.secret is not set: the internal "
        + "API accepts only service tokens signed with it, and roles other than standalone never fall back to the "
        + "development key; set PLAYLINE_API_SECRET (at least 32 bytes, not the player-token key) and mint tokens "
        + "for your services with: bin/playline token --service NAME");
  }

  private static Resolved resolve(ConfigSource config, Setting<Optional<String>> secret, boolean allowDevSecret,
      String devSecret, String missing) {
    return secret.read(config)
        .map(s -> new Resolved(s, false))
        .orElseGet(() -> {
          if (!allowDevSecret) {
            throw new StartupException(missing);
          }
          return new Resolved(devSecret, true);
        });
  }
}
