package io.playline.bench.common;

import io.playline.core.config.ConfigSource;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * {@code --secret}: the key the bench's players sign their tokens with, declared once for the
 * commands that connect players ({@code bench}, {@code bench hostile}).
 */
public final class SecretOption {
  @Option(names = "--secret", paramLabel = "SECRET",
      description = "Token signing secret (default: $PLAYLINE_AUTH_SECRET, else the standalone development secret).")
  @Nullable String secret;

  /** The secret given, else {@code auth.secret} from {@code config}, else {@code devSecret}. */
  public String secret(ConfigSource config, String devSecret) {
    return secret != null ? secret : BenchSettings.authSecret(config, devSecret);
  }
}
