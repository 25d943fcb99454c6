package io.playline.bench.heartbeats;

import java.util.List;

/**
 * What the launcher that embeds the benchmark supplies: the development secret tokens fall back
 * to, and the command that starts one gateway-only process (empty: spawning is unsupported).
 * Immutable.
 *
 * @param devSecret the secret used when neither {@code --secret} nor {@code PLAYLINE_AUTH_SECRET} is set
 * @param gatewayCommand e.g. {@code java <flags> -cp <cp> io.playline.standalone.PlaylineCli gateway}
 */
public record BenchEnvironment(String devSecret, List<String> gatewayCommand) {
  public BenchEnvironment {
    gatewayCommand = List.copyOf(gatewayCommand);
  }
}
