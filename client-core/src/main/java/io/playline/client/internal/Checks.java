package io.playline.client.internal;

import org.jspecify.annotations.Nullable;

/** Argument checks with Guava-style {@code %s} messages naming the setting. Stateless. */
public final class Checks {
  private Checks() {}

  /**
   * Throws {@link IllegalArgumentException} with {@code template} formatted with {@code args}
   * unless {@code condition} holds.
   */
  public static void checkArgument(boolean condition, String template, @Nullable Object... args) {
    if (!condition) {
      throw new IllegalArgumentException(String.format(template, args));
    }
  }

  /** Throws {@link IllegalStateException} with {@code message} unless {@code condition} holds. */
  public static void checkState(boolean condition, String message) {
    if (!condition) {
      throw new IllegalStateException(message);
    }
  }
}
