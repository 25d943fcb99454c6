package io.playline.roles;

import io.playline.core.config.ConfigSource;
import io.playline.gateway.config.GatewayConfig;
import io.playline.gateway.session.JwtTokens;
import io.playline.gateway.ws.DemoPage;
import io.playline.time.Time;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** The demo web player's switch ({@code demo.enabled}): on in standalone, off in the gateway role. */
public final class Demo {
  /** Lifetime of a token the demo page fetches; the SDK fetches a new one to refresh. */
  public static final Duration TOKEN_TTL = Duration.ofHours(1);

  private Demo() {}

  /**
   * The page when {@code demo.enabled} (default {@code onByDefault}), handing out tokens only when
   * player tokens are signed with the public development secret ({@code devSecret}): anybody can
   * mint those already, valid from {@code time}'s now. Null when off.
   */
  public static @Nullable DemoPage page(ConfigSource config, boolean onByDefault, @Nullable String secret,
      boolean devSecret, Time time) {
    if (!RoleSettings.DEMO_ENABLED.read(config, onByDefault)) {
      return null;
    }
    if (!devSecret || secret == null) {
      return DemoPage.load(null);
    }
    return DemoPage.load(uid -> JwtTokens.mint(secret, uid, TOKEN_TTL, time.instant()));
  }

  /** The page's address on the node whose player stream is {@code websocket} (ws[s]://host:port/v1/stream). */
  public static String url(String websocket) {
    return websocket.replaceFirst("^ws", "http").replace(GatewayConfig.WS_PATH, DemoPage.PATH + "/");
  }
}
