package io.playline.standalone;

import io.playline.core.config.ConfigSource;

/** Resolves the token signing secret: {@code auth.secret}, or a fixed development secret where allowed. */
final class Secrets {
  /** Publicly known, so only standalone (a developer's laptop) falls back to it, and says so. */
  static final String DEV_SECRET = "playline-dev-secret-do-not-use-in-production";

  private Secrets() {}

  record Resolved(String secret, boolean dev) {}

  static Resolved resolve(ConfigSource config, boolean allowDevSecret) {
    return config.raw("auth.secret")
        .map(s -> new Resolved(s, false))
        .orElseGet(() -> {
          if (!allowDevSecret) {
            throw new StartupException("auth.secret is not set; set PLAYLINE_AUTH_SECRET (at least 32 bytes)");
          }
          return new Resolved(DEV_SECRET, true);
        });
  }
}
