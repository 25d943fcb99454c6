package io.playline.roles.cli;

import io.playline.core.config.ConfigSource;
import io.playline.core.config.SettingsCatalogue;
import io.playline.core.config.UnknownKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
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

  /** The catalogues every key must belong to (null: not checked); set by the process's entry point. */
  private static volatile @Nullable List<SettingsCatalogue> known;

  /**
   * Makes every later {@link #load} refuse a key that no setting of {@code catalogues} reads
   * ({@link UnknownKeys}): the command-line entry points set it to every module's catalogues.
   */
  public static void checkKeysAgainst(List<SettingsCatalogue> catalogues) {
    known = List.copyOf(catalogues);
  }

  /**
   * The layered config: defaults, file, environment, system properties, then {@code extra} and
   * --set; refused when a key is unknown ({@link #checkKeysAgainst}).
   */
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
    ConfigSource source = ConfigSource.load(file, all);
    List<SettingsCatalogue> catalogues = known;
    if (catalogues != null) {
      UnknownKeys.check(source, catalogues);
    }
    return source;
  }
}
