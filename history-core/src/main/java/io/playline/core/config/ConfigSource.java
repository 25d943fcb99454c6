package io.playline.core.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.Collections;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Layered configuration: defaults in code, then a properties file, then environment variables,
 * then system properties, then explicit overrides (e.g. command-line flags); the later layer wins.
 *
 * <p>Keys are dotted lower case ({@code ws.port}). The environment variable for a key is {@code
 * PLAYLINE_} followed by the key in upper case with dots and dashes turned into underscores
 * ({@code PLAYLINE_WS_PORT}); the system property is {@code playline.} + key. Every typed getter
 * validates its range and throws a {@link ConfigException} naming the key, the value and the
 * allowed range, so a bad value stops start-up with a message an operator can act on.
 *
 * <p>Code reads a key through its {@link Setting} definition, which calls these getters with the
 * key's default and range; docs/configuration.md is generated from the definitions.
 *
 * <p>Immutable and thread-safe.
 */
public final class ConfigSource {
  private final Map<String, String> values;
  private final Map<String, String> origins;

  private ConfigSource(Map<String, String> values, Map<String, String> origins) {
    this.values = Map.copyOf(values);
    this.origins = Map.copyOf(origins);
  }

  /** An empty source: every getter answers its default. */
  public static ConfigSource empty() {
    return new ConfigSource(Map.of(), Map.of());
  }

  /**
   * Loads the layers for this process: {@code file} (if not null; it must exist), the process
   * environment, the system properties and {@code overrides}.
   */
  public static ConfigSource load(@Nullable Path file, Map<String, String> overrides) {
    return load(file, System.getenv(), System.getProperties(), overrides);
  }

  /** Loads the layers from explicit maps; visible for tests. */
  public static ConfigSource load(
      @Nullable Path file,
      Map<String, String> env,
      Properties systemProperties,
      Map<String, String> overrides) {
    Map<String, String> values = new HashMap<>();
    Map<String, String> origins = new HashMap<>();
    if (file != null) {
      Properties props = new Properties();
      try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        props.load(reader);
      } catch (IOException e) {
        throw new ConfigException("config file " + file + ": cannot be read (" + e.getMessage() + ")");
      }
      for (String key : props.stringPropertyNames()) {
        put(values, origins, key, props.getProperty(key), "file " + file);
      }
    }
    for (Map.Entry<String, String> e : env.entrySet()) {
      if (e.getKey().startsWith("PLAYLINE_") && !e.getKey().equals("PLAYLINE_CONFIG")) {
        String key = e.getKey().substring("PLAYLINE_".length()).toLowerCase(Locale.ROOT).replace('_', '.');
        put(values, origins, key, e.getValue(), "env " + e.getKey());
      }
    }
    for (String name : systemProperties.stringPropertyNames()) {
      if (name.startsWith("playline.") && !name.startsWith("playline.test.")) {
        put(values, origins, name.substring("playline.".length()), systemProperties.getProperty(name),
            "system property " + name);
      }
    }
    overrides.forEach((k, v) -> put(values, origins, k, v, "command line"));
    return new ConfigSource(values, origins);
  }

  private static void put(Map<String, String> values, Map<String, String> origins, String key, String value,
      String origin) {
    String normalized = normalize(key);
    values.put(normalized, value.trim());
    origins.put(normalized, origin);
  }

  /** Env variables cannot hold dashes or dots, so keys compare with both folded to dots. */
  private static String normalize(String key) {
    return key.trim().toLowerCase(Locale.ROOT).replace('-', '.').replace('_', '.');
  }

  /** The environment variable that sets {@code key}. */
  public static String envName(String key) {
    return "PLAYLINE_" + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  /** This source with {@code overrides} applied on top (e.g. per-test values). */
  public ConfigSource with(Map<String, String> overrides) {
    Map<String, String> values = new HashMap<>(this.values);
    Map<String, String> origins = new HashMap<>(this.origins);
    overrides.forEach((k, v) -> put(values, origins, k, v, "override"));
    return new ConfigSource(values, origins);
  }

  /** The raw value of {@code key}, if any layer set it to a non-empty string. */
  public Optional<String> raw(String key) {
    String v = values.get(normalize(key));
    return v == null || v.isEmpty() ? Optional.empty() : Optional.of(v);
  }

  /**
   * Every key under {@code prefix} that some layer set to a non-empty value, by the rest of its key
   * ({@code withPrefix("kafka.common.")} maps {@code kafka.common.security.protocol=SSL} to {@code
   * security.protocol -> SSL}), in key order. Keys compare normalized, so the rest comes back dotted
   * lower case whichever layer set it ({@code PLAYLINE_KAFKA_COMMON_SECURITY_PROTOCOL} too).
   *
   * @throws IllegalArgumentException when {@code prefix} does not end with a dot
   */
  public Map<String, String> withPrefix(String prefix) {
    String p = normalize(prefix);
    if (!p.endsWith(".") || p.length() < 2) {
      throw new IllegalArgumentException("prefix: '" + prefix + "' (expected: a key prefix ending with '.')");
    }
    Map<String, String> found = new TreeMap<>();
    values.forEach((key, value) -> {
      if (key.startsWith(p) && key.length() > p.length() && !value.isEmpty()) {
        found.put(key.substring(p.length()), value);
      }
    });
    return Collections.unmodifiableMap(found);
  }

  public String string(String key, String defaultValue) {
    return raw(key).orElse(defaultValue);
  }

  public boolean bool(String key, boolean defaultValue) {
    Optional<String> v = raw(key);
    if (v.isEmpty()) {
      return defaultValue;
    }
    return switch (v.get().toLowerCase(Locale.ROOT)) {
      case "true", "yes", "on", "1" -> true;
      case "false", "no", "off", "0" -> false;
      default -> throw invalid(key, v.get(), "true or false");
    };
  }

  public int intValue(String key, int defaultValue, int min, int max) {
    return (int) longValue(key, defaultValue, min, max);
  }

  public long longValue(String key, long defaultValue, long min, long max) {
    Optional<String> v = raw(key);
    if (v.isEmpty()) {
      return defaultValue;
    }
    long parsed;
    try {
      parsed = Long.parseLong(v.get().replace("_", ""));
    } catch (NumberFormatException e) {
      throw invalid(key, v.get(), "an integer in " + min + ".." + max);
    }
    if (parsed < min || parsed > max) {
      throw invalid(key, v.get(), "an integer in " + min + ".." + max);
    }
    return parsed;
  }

  /** A TCP port; 0 means "any free port" only where {@code allowZero}. */
  public int port(String key, int defaultValue, boolean allowZero) {
    return intValue(key, defaultValue, allowZero ? 0 : 1, 65535);
  }

  /**
   * A duration written as a number with a unit suffix: {@code ms}, {@code s}, {@code m}, {@code
   * h} or {@code d} (e.g. {@code 2ms}, {@code 10s}, {@code 90d}).
   */
  public Duration duration(String key, Duration defaultValue, Duration min, Duration max) {
    Optional<String> v = raw(key);
    if (v.isEmpty()) {
      return defaultValue;
    }
    String expected = "a duration in " + format(min) + ".." + format(max) + " (e.g. 500ms, 10s, 5m, 1h, 90d)";
    Duration d = parseDuration(v.get()).orElseThrow(() -> invalid(key, v.get(), expected));
    if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      throw invalid(key, v.get(), expected);
    }
    return d;
  }

  public ZoneId zone(String key, ZoneId defaultValue) {
    Optional<String> v = raw(key);
    if (v.isEmpty()) {
      return defaultValue;
    }
    try {
      return ZoneId.of(v.get());
    } catch (DateTimeParseException | java.time.zone.ZoneRulesException e) {
      throw invalid(key, v.get(), "a time zone id such as UTC or Asia/Shanghai");
    }
  }

  /** Parses {@code 10s}-style durations; empty when the text is not one. */
  public static Optional<Duration> parseDuration(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    int i = 0;
    while (i < t.length() && Character.isDigit(t.charAt(i))) {
      i++;
    }
    if (i == 0 || i > 12) {
      return Optional.empty();
    }
    long n = Long.parseLong(t.substring(0, i));
    return switch (t.substring(i).trim()) {
      case "ms" -> Optional.of(Duration.ofMillis(n));
      case "s" -> Optional.of(Duration.ofSeconds(n));
      case "m" -> Optional.of(Duration.ofMinutes(n));
      case "h" -> Optional.of(Duration.ofHours(n));
      case "d" -> Optional.of(Duration.ofDays(n));
      default -> Optional.empty();
    };
  }

  private static String format(Duration d) {
    if (d.toMillis() % 86_400_000L == 0 && !d.isZero()) {
      return d.toDays() + "d";
    }
    if (d.toMillis() % 1000 == 0) {
      return d.toSeconds() + "s";
    }
    return d.toMillis() + "ms";
  }

  private ConfigException invalid(String key, String value, String expected) {
    String origin = origins.getOrDefault(normalize(key), "default");
    return new ConfigException(
        key + ": '" + value + "' (expected: " + expected + "; set by " + origin + ", env " + envName(key) + ")");
  }

  /** Every key set by some layer, with where it came from; for the start-up log. */
  public Map<String, String> describe() {
    return new TreeMap<>(origins);
  }
}
