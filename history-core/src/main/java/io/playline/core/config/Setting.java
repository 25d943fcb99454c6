package io.playline.core.config;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The definition of one configuration key: its name, {@link Kind}, default, range and a one-line
 * Markdown description. {@link #read(ConfigSource)} reads the key through {@link ConfigSource}'s
 * typed getters, so validation and error messages are the source's. Definitions are grouped in
 * {@link SettingsCatalogue}s, from which docs/configuration.md is generated: a key the code reads
 * is a key the reference lists, with the default and range the code applies.
 *
 * <p>A default that follows from another key or from the process ({@code 3 × recovery.interval},
 * host name + pid) is <em>derived</em>: the definition holds a text saying so, and the code passes
 * the value it derives to {@link #read(ConfigSource, Object)}. A key with a {@code <name>} part
 * ({@code history.retention.<business>}) is a template: {@link #named} gives the key of one name.
 *
 * <p>Immutable and thread-safe.
 *
 * @param <T> the type of the value read
 */
public final class Setting<T> {
  /** What a key holds, which decides how it is read and how its default and range are written. */
  public enum Kind { STRING, SECRET, BOOL, INT, LONG, BYTES, PORT, DURATION, ZONE, PREFIX }

  /** The text of a derived default, e.g. {@code derived("3 × `recovery.interval`")}. */
  public record Derived(String text) {
    public Derived {
      Objects.requireNonNull(text, "text");
    }
  }

  /** Reads {@code key} from a source, answering {@code defaultValue} when no layer sets it. */
  @FunctionalInterface
  private interface Reader<T> {
    T read(ConfigSource source, String key, T defaultValue);
  }

  private final String key;
  private final Kind kind;
  private final @Nullable T defaultValue;
  private final @Nullable String defaultText;
  private final @Nullable T min;
  private final @Nullable T max;
  private final String rangeNote;
  private final String description;
  private final Reader<T> reader;

  private Setting(String key, Kind kind, @Nullable T defaultValue, @Nullable String defaultText, @Nullable T min,
      @Nullable T max, String rangeNote, String description, Reader<T> reader) {
    this.key = Objects.requireNonNull(key, "key");
    this.kind = kind;
    this.defaultValue = defaultValue;
    this.defaultText = defaultText;
    this.min = min;
    this.max = max;
    this.rangeNote = rangeNote;
    this.description = Objects.requireNonNull(description, "description");
    this.reader = reader;
  }

  /** A derived default, described by {@code text} (Markdown). */
  public static Derived derived(String text) {
    return new Derived(text);
  }

  public static Setting<String> string(String key, String defaultValue, String description) {
    return new Setting<>(key, Kind.STRING, defaultValue, null, null, null, "", description, ConfigSource::string);
  }

  public static Setting<String> string(String key, Derived defaultValue, String description) {
    return new Setting<>(key, Kind.STRING, null, defaultValue.text(), null, null, "", description,
        ConfigSource::string);
  }

  /** A string without a default: empty when no layer sets it; {@code unset} says what that means. */
  public static Setting<Optional<String>> optional(String key, String unset, String description) {
    return new Setting<>(key, Kind.STRING, Optional.empty(), unset, null, null, "", description,
        (source, k, d) -> source.raw(k));
  }

  /** As {@link #optional}, for a key or password: the reference never shows a value. */
  public static Setting<Optional<String>> secret(String key, String unset, String description) {
    return new Setting<>(key, Kind.SECRET, Optional.empty(), unset, null, null, "", description,
        (source, k, d) -> source.raw(k));
  }

  public static Setting<Boolean> bool(String key, boolean defaultValue, String description) {
    return new Setting<>(key, Kind.BOOL, defaultValue, null, null, null, "", description, ConfigSource::bool);
  }

  public static Setting<Boolean> bool(String key, Derived defaultValue, String description) {
    return new Setting<>(key, Kind.BOOL, null, defaultValue.text(), null, null, "", description, ConfigSource::bool);
  }

  public static Setting<Integer> intValue(String key, int defaultValue, int min, int max, String description) {
    return intValue(key, Kind.INT, defaultValue, null, min, max, description);
  }

  public static Setting<Integer> intValue(String key, Derived defaultValue, int min, int max, String description) {
    return intValue(key, Kind.INT, null, defaultValue.text(), min, max, description);
  }

  /** An int counting bytes: read as a plain integer, written in the reference with KiB / MiB. */
  public static Setting<Integer> bytes(String key, int defaultValue, int min, int max, String description) {
    return intValue(key, Kind.BYTES, defaultValue, null, min, max, description);
  }

  private static Setting<Integer> intValue(String key, Kind kind, @Nullable Integer defaultValue,
      @Nullable String defaultText, int min, int max, String description) {
    return new Setting<>(key, kind, defaultValue, defaultText, min, max, "", description,
        (source, k, d) -> source.intValue(k, d, min, max));
  }

  public static Setting<Long> longValue(String key, long defaultValue, long min, long max, String description) {
    return new Setting<>(key, Kind.LONG, defaultValue, null, min, max, "", description,
        (source, k, d) -> source.longValue(k, d, min, max));
  }

  /** A TCP port; 0 ("any free port") only where {@code allowZero}. */
  public static Setting<Integer> port(String key, int defaultValue, boolean allowZero, String description) {
    return new Setting<>(key, Kind.PORT, defaultValue, null, allowZero ? 0 : 1, 65535, "", description,
        (source, k, d) -> source.port(k, d, allowZero));
  }

  public static Setting<Duration> duration(String key, Duration defaultValue, Duration min, Duration max,
      String description) {
    return new Setting<>(key, Kind.DURATION, defaultValue, null, min, max, "", description,
        (source, k, d) -> source.duration(k, d, min, max));
  }

  public static Setting<Duration> duration(String key, Derived defaultValue, Duration min, Duration max,
      String description) {
    return new Setting<>(key, Kind.DURATION, null, defaultValue.text(), min, max, "", description,
        (source, k, d) -> source.duration(k, d, min, max));
  }

  public static Setting<ZoneId> zone(String key, ZoneId defaultValue, String description) {
    return new Setting<>(key, Kind.ZONE, defaultValue, null, null, null, "", description, ConfigSource::zone);
  }

  /**
   * Every key under {@code prefix} (which ends with a dot), passed through by the rest of its key:
   * {@link ConfigSource#withPrefix}.
   */
  public static Setting<Map<String, String>> prefix(String prefix, String description) {
    return new Setting<>(prefix, Kind.PREFIX, Map.of(), null, null, null, "", description,
        (source, k, d) -> source.withPrefix(k));
  }

  /**
   * This definition with {@code note} added to its range, for what the range cannot say: a bound
   * set by another key ({@code > `recovery.interval`}), or the values a string takes.
   */
  public Setting<T> rangeNote(String note) {
    return new Setting<>(key, kind, defaultValue, defaultText, min, max, note, description, reader);
  }

  /** The key of {@code name} in this template: {@code history.retention.<business>} named "live". */
  public Setting<T> named(String name) {
    int open = key.indexOf('<');
    if (open < 0) {
      throw new IllegalStateException(key + " is not a template");
    }
    String named = key.substring(0, open) + name + key.substring(key.indexOf('>', open) + 1);
    return new Setting<>(named, kind, defaultValue, defaultText, min, max, rangeNote, description, reader);
  }

  /**
   * Reads the key from {@code source}, or its default.
   *
   * @throws ConfigException naming the key when the value is malformed or out of range
   * @throws IllegalStateException when the default is derived: the caller passes it to {@link
   *     #read(ConfigSource, Object)}
   */
  public T read(ConfigSource source) {
    T d = defaultValue;
    if (d == null) {
      throw new IllegalStateException(key + ": the default is derived (" + defaultText + "); pass it to read");
    }
    return reader.read(source, key, d);
  }

  /**
   * Reads a key whose default is derived, answering {@code derivedDefault} when it is not set.
   *
   * @throws IllegalStateException when the definition has a default of its own
   */
  public T read(ConfigSource source, T derivedDefault) {
    if (defaultValue != null) {
      throw new IllegalStateException(key + ": has a default of its own; read(source) applies it");
    }
    return reader.read(source, key, derivedDefault);
  }

  /**
   * {@code value}, checked against this key's range: a config record's compact constructor checks
   * its fields here, so a record built in code is held to the ranges a configured value is.
   *
   * @throws ConfigException naming the key, the value and the range
   */
  public T check(T value) {
    if (min != null && compare(value, min) < 0 || max != null && compare(value, max) > 0) {
      throw new ConfigException(key + ": " + value + " (expected: " + shown(min) + ".." + shown(max) + ")");
    }
    return value;
  }

  private static int compare(Object a, Object b) {
    if (a instanceof Duration d && b instanceof Duration e) {
      return d.compareTo(e);
    }
    return Long.compare(((Number) a).longValue(), ((Number) b).longValue());
  }

  private static String shown(@Nullable Object v) {
    return v instanceof Duration d ? duration(d) : String.valueOf(v);
  }

  /** The value when some layer sets the key, validated as by {@link #read}; empty otherwise. */
  public Optional<T> readIfSet(ConfigSource source) {
    if (source.raw(key).isEmpty()) {
      return Optional.empty();
    }
    // The key is set, so the default the getter takes is never answered.
    T unused = defaultValue != null ? defaultValue : min;
    if (unused == null) {
      throw new IllegalStateException(key + ": neither a default nor a minimum to read with");
    }
    return Optional.of(reader.read(source, key, unused));
  }

  public String key() {
    return key;
  }

  public Kind kind() {
    return kind;
  }

  /** The environment variable that sets the key ({@link ConfigSource#envName}). */
  public String env() {
    return ConfigSource.envName(kind == Kind.PREFIX ? key + "<prop>" : key);
  }

  /** The default; empty when it is derived. */
  public Optional<T> defaultValue() {
    return Optional.ofNullable(defaultValue);
  }

  /** Whether the caller derives the default (from another key or from the process). */
  public boolean isDerived() {
    return defaultValue == null;
  }

  /** The least accepted value, for numbers, ports and durations. */
  public Optional<T> min() {
    return Optional.ofNullable(min);
  }

  /** The greatest accepted value, for numbers, ports and durations. */
  public Optional<T> max() {
    return Optional.ofNullable(max);
  }

  /** What the key does, one line of Markdown. */
  public String description() {
    return description;
  }

  /** The key as the reference writes it: a prefix with {@code <prop>} after it. */
  public String documentedKey() {
    return kind == Kind.PREFIX ? key + "<prop>" : key;
  }

  /** The default as the reference writes it (Markdown): a value, or the derived default's text. */
  public String documentedDefault() {
    if (defaultText != null) {
      return defaultText;
    }
    T d = Objects.requireNonNull(defaultValue);
    return switch (kind) {
      case STRING -> "`" + d + "`";
      case PREFIX -> "—";
      case BYTES -> bytes((Integer) d, true);
      case DURATION -> duration((Duration) d);
      default -> d.toString();
    };
  }

  /**
   * The default as a properties file writes it ({@code 64KiB} as {@code 65536}, {@code 10s}); empty
   * when the default is derived, unset or a prefix's.
   */
  public Optional<String> exampleValue() {
    if (defaultValue == null || kind == Kind.PREFIX) {
      return Optional.empty();
    }
    Object d = defaultValue;
    if (d instanceof Optional<?> o) {
      return o.map(Object::toString);
    }
    if (d instanceof Duration duration) {
      return Optional.of(duration.isZero() ? "0s" : duration(duration)); // a value needs its unit
    }
    return Optional.of(d.toString());
  }

  /** The accepted values as the reference writes them (Markdown), or "" when anything goes. */
  public String documentedRange() {
    String range = switch (kind) {
      case INT, LONG -> number(min) + "–" + number(max);
      case PORT -> number(min) + "–" + number(max) + (Integer.valueOf(0).equals(min) ? " (0 = any free port)" : "");
      case BYTES -> bytes((Integer) Objects.requireNonNull(min), false) + "–"
          + bytes((Integer) Objects.requireNonNull(max), false);
      case DURATION -> duration((Duration) Objects.requireNonNull(min)) + "–"
          + duration((Duration) Objects.requireNonNull(max));
      case BOOL -> "`true` or `false`";
      case ZONE -> "a zone id (`UTC`, `Asia/Shanghai`)";
      case STRING, SECRET, PREFIX -> "";
    };
    if (rangeNote.isEmpty()) {
      return range;
    }
    return range.isEmpty() ? rangeNote : range + ", " + rangeNote;
  }

  private static String number(@Nullable Object n) {
    if (Long.valueOf(Long.MAX_VALUE).equals(n)) {
      return "2⁶³−1";
    }
    return String.valueOf(n);
  }

  /** {@code 524288} as "524288 (512 KiB)" for a default, "512 KiB" in a range. */
  private static String bytes(int n, boolean withNumber) {
    String unit = n >= 1 << 20 && n % (1 << 20) == 0 ? (n >> 20) + " MiB"
        : n >= 1 << 10 && n % (1 << 10) == 0 ? (n >> 10) + " KiB" : null;
    if (unit == null) {
      return Integer.toString(n);
    }
    return withNumber ? n + " (" + unit + ")" : unit;
  }

  /** A duration the way a key's value writes it: the largest whole unit ({@code 90d}, {@code 5m}, {@code 2ms}). */
  static String duration(Duration d) {
    long ms = d.toMillis();
    if (ms == 0) {
      return "0";
    }
    long[] units = {86_400_000L, 3_600_000L, 60_000L, 1000L};
    String[] names = {"d", "h", "m", "s"};
    for (int i = 0; i < units.length; i++) {
      if (ms % units[i] == 0) {
        return ms / units[i] + names[i];
      }
    }
    return ms + "ms";
  }

  @Override
  public String toString() {
    return "Setting[" + key + "]";
  }
}
