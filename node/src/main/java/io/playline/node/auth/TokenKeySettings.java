package io.playline.node.auth;

import io.playline.core.config.Setting;
import java.util.Optional;

/**
 * Token keys more than one role reads: the player-token key is verified by the player edge and
 * kept apart from {@code api.secret} by the internal API. Listed in the player edge's catalogue
 * ({@code io.playline.gateway.config.AuthSettings}), defined here so roles without players need
 * not depend on it.
 */
public final class TokenKeySettings {
  public static final Setting<Optional<String>> PLAYER_SECRET = Setting.secret("auth.secret",
      "dev secret (standalone only)", "HS256 key of player tokens; may be unset on a gateway with `auth.jwks.url` "
          + "(then HS256 tokens are refused)")
      .rangeNote("≥ 32 bytes");

  private TokenKeySettings() {}
}
