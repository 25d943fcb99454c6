package io.playline.standalone.cli;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.playline.core.config.ConfigSource;
import java.time.Duration;
import picocli.CommandLine.Option;

/** Where the internal API is and how long to wait for it; shared by every {@code history} command. */
final class ApiOptions {
  @Option(names = "--api", paramLabel = "HOST:PORT",
      description = "Internal API address (default: $PLAYLINE_API_ADDRESS, else 127.0.0.1:9091).")
  String api = defaultAddress();

  @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "10s",
      description = "Deadline of each call, e.g. 500ms, 10s (default: ${DEFAULT-VALUE}).")
  String timeout = "10s";

  @Option(names = "--json", description = "Print JSON (one object) instead of a table.")
  boolean json;

  private static String defaultAddress() {
    String env = System.getenv("PLAYLINE_API_ADDRESS");
    return env == null || env.isBlank() ? "127.0.0.1:9091" : env;
  }

  Duration deadline() {
    return ConfigSource.parseDuration(timeout).filter(d -> !d.isZero())
        .orElseThrow(() -> new IllegalArgumentException("--timeout: '" + timeout + "' (expected: e.g. 500ms, 10s)"));
  }

  ManagedChannel channel() {
    int colon = api.lastIndexOf(':');
    if (colon <= 0 || colon == api.length() - 1) {
      throw new IllegalArgumentException("--api: '" + api + "' (expected: HOST:PORT)");
    }
    int port;
    try {
      port = Integer.parseInt(api.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--api: '" + api + "' (expected: HOST:PORT)");
    }
    return NettyChannelBuilder.forAddress(api.substring(0, colon), port).usePlaintext().build();
  }
}
