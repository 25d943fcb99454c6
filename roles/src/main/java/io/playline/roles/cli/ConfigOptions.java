package io.playline.roles.cli;

import io.playline.core.config.ConfigSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** Options every command shares: the config file and {@code --set key=value} overrides. */
public final class ConfigOptions {
  @Option(names = "--config", paramLabel = "FILE",
      description = "Properties file with config keys (default: $PLAYLINE_CONFIG, else ./playline.properties if present).")
  @Nullable Path configFile;

  @Option(names = "--set", paramLabel = "KEY=VALUE",
      description = "Override one config key (repeatable), e.g. --set ws.port=18080.")
  public Map<String, String> overrides = new HashMap<>();

  /** The layered config: defaults, file, environment, system properties, then {@code extra} and --set. */
  public ConfigSource load(Map<String, String> extra) {
    Path file = configFile;
    if (file == null) {
      String env = System.getenv("PLAYLINE_CONFIG");
      if (env != null && !env.isBlank()) {
        file = Path.of(env);
      } else if (Files.isRegularFile(Path.of("playline.properties"))) {
        file = Path.of("playline.properties");
      }
    }
    Map<String, String> all = new HashMap<>(extra);
    all.putAll(overrides);
    return ConfigSource.load(file, all);
  }
}
