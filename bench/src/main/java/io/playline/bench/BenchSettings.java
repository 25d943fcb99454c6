package io.playline.bench;

import io.playline.api.ApiSettings;
import io.playline.core.config.ConfigSource;
import io.playline.gateway.config.AuthSettings;
import io.playline.roles.cli.ConfigOptions;
import io.playline.roles.endpoints.Endpoints;
import io.playline.standalone.PlaylineCli;
import io.playline.standalone.StandaloneSettings;
import java.nio.file.Path;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What the bench commands take from Playline's configuration, read through the settings catalogue
 * from the layers a role reads ({@code $PLAYLINE_CONFIG} or {@code ./playline.properties}, {@code
 * PLAYLINE_*} environment variables, {@code playline.*} system properties, then {@code --set}): the
 * standalone's data dir ({@code data.dir}) and the keys tokens are signed with ({@code auth.secret},
 * {@code api.secret}), which fall back to the standalone's development keys as standalone does.
 * Stateless.
 */
final class BenchSettings {
  private BenchSettings() {}

  /** The layered config, {@code set} on top. */
  static ConfigSource load(Map<String, String> set) {
    return new ConfigOptions().load(set);
  }

  /** {@code given}, else the endpoints file in {@code data.dir}. */
  static Path endpointsFile(@Nullable Path given, ConfigSource config) {
    return given != null ? given : Path.of(StandaloneSettings.DATA_DIR.read(config)).resolve(Endpoints.FILE_NAME);
  }

  /** {@code auth.secret}, else {@code devSecret}. */
  static String authSecret(ConfigSource config, String devSecret) {
    return AuthSettings.SECRET.read(config).orElse(devSecret);
  }

  /** {@code api.secret}, else the standalone's development key. */
  static String apiSecret(ConfigSource config) {
    return ApiSettings.SECRET.read(config).orElse(PlaylineCli.DEV_API_SECRET);
  }
}
