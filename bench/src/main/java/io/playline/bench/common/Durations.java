package io.playline.bench.common;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The duration flags every bench command takes ({@code --warmup 8s}, {@code --phase 500ms},
 * {@code --measure 2m}). Stateless.
 */
public final class Durations {
  private Durations() {}

  /**
   * {@code value} as a duration ({@code ms}, {@code s} or {@code m}, fractions allowed but for
   * {@code ms}), {@code fallback} when it is null.
   *
   * @throws IllegalArgumentException naming {@code flag} when {@code value} is none of those
   */
  public static Duration parse(@Nullable String value, Duration fallback, String flag) {
    if (value == null) {
      return fallback;
    }
    String v = value.trim().toLowerCase(java.util.Locale.ROOT);
    try {
      if (v.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
      }
      if (v.endsWith("s")) {
        return Duration.ofMillis(Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 1000));
      }
      if (v.endsWith("m")) {
        return Duration.ofSeconds(Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 60));
      }
    } catch (NumberFormatException e) {
      // Falls through to the message below.
    }
    throw new IllegalArgumentException(flag + ": '" + value + "' (expected: e.g. 500ms, 10s, 2m)");
  }
}
