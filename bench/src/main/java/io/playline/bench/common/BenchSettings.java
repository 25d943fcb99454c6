package io.playline.bench.common;

import io.playline.api.config.ApiSettings;
import io.playline.core.config.ConfigSource;
import io.playline.gateway.config.AuthSettings;
import io.playline.roles.cli.ConfigOptions;
import io.playline.standalone.PlaylineCli;
import java.util.Map;

/**
 * What the bench commands take from Playline's configuration, read through the settings catalogue
 * from the layers a role reads ({@code $PLAYLINE_CONFIG} or {@code ./playline.properties}, {@code
 * PLAYLINE_*} environment variables, {@code playline.*} system properties, then {@code --set}): the
 * standalone's data dir ({@code data.dir}) and the keys tokens are signed with ({@code auth.secret},
 * {@code api.secret}), which fall back to the standalone's development keys as standalone does.
 * Stateless.
 */
public final class BenchSettings {
  private BenchSettings() {}

  /** The layered config, {@code set} on top. */
  public static ConfigSource load(Map<String, String> set) {
    return new ConfigOptions().load(set);
  }

  /** {@code auth.secret}, else {@code devSecret}. */
  public static String authSecret(ConfigSource config, String devSecret) {
    return AuthSettings.SECRET.read(config).orElse(devSecret);
  }

  /** {@code api.secret}, else the standalone's development key. */
  public static String apiSecret(ConfigSource config) {
    return ApiSettings.SECRET.read(config).orElse(PlaylineCli.DEV_API_SECRET);
  }
}
