package io.playline.core.config;

/**
 * A configuration value is missing, malformed or out of its allowed range. The message names the
 * key, the offending value and what was expected, and is meant to be shown to the operator as is.
 */
public final class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }

  /**
   * Throws unless {@code ok}: for what a {@link Setting}'s range cannot say (a bound set by another
   * key, a name's syntax), checked where a config record is built.
   *
   * @throws ConfigException {@code "<key>: <value> (expected: <expected>)"}
   */
  public static void check(boolean ok, String key, Object value, String expected) {
    if (!ok) {
      throw new ConfigException(key + ": " + value + " (expected: " + expected + ")");
    }
  }
}
