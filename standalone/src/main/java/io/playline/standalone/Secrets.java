package io.playline.standalone;

import io.playline.core.config.ConfigSource;

/** Resolves the token signing secret: {@code auth.secret}, or a fixed development secret where allowed. */
final class Secrets {
  /** Publicly known, so only standalone (a developer's laptop) falls back to it, and says so. */
  static final String DEV_SECRET = "playline-dev-secret-do-not-use-in-production";

  private Secrets() {}

  record Resolved(String secret, boolean dev) {}

  /**
   * A random key for a node that accepts no players (the api role): its authenticator is never
   * called, and a random key cannot be the public development secret by accident.
   */
  static String unusedPlayerSecret() {
    byte[] key = new byte[32];
    new java.security.SecureRandom().nextBytes(key);
    return java.util.HexFormat.of().formatHex(key);
  }

  static Resolved resolve(ConfigSource config, boolean allowDevSecret) {
    return config.raw("auth.secret")
        .map(s -> new Resolved(s, false))
        .orElseGet(() -> {
          if (!allowDevSecret) {
            throw new StartupException("auth.secret is not set: roles other than standalone never fall back to the development secret; "
                + "set PLAYLINE_AUTH_SECRET (at least 32 bytes) to the key your identity service signs player tokens with");
          }
          return new Resolved(DEV_SECRET, true);
        });
  }
}
