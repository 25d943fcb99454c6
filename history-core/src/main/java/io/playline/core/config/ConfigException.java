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
}
