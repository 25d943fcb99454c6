package io.playline.api.config;

import io.playline.core.config.ConfigSource;
import java.time.Duration;

/**
 * The internal API's HTTP port, where the History API is served as the Connect protocol: the
 * {@code api.http.*} keys ({@code docs/configuration.md} has their defaults and ranges).
 *
 * @param enabled whether the port is served at all
 * @param port the port (0 = any free port)
 * @param maxConnections open connections at most
 * @param maxConnectionsPerAddress of those, from one address at most
 * @param requestTimeout a whole request within this of connecting or of the previous answer
 * @param maxPipelined requests sent ahead of their answers at most
 * @param callTimeout the longest a call may run (a shorter {@code Connect-Timeout-Ms} wins)
 */
public record ApiHttpConfig(boolean enabled, int port, int maxConnections, int maxConnectionsPerAddress,
    Duration requestTimeout, int maxPipelined, Duration callTimeout) {
  /** The port when {@code api.port} is not 0. */
  static final int DEFAULT_PORT = 9095;

  public ApiHttpConfig {
    ApiSettings.HTTP_PORT.check(port);
    ApiSettings.HTTP_MAX_CONNECTIONS.check(maxConnections);
    ApiSettings.HTTP_MAX_CONNECTIONS_PER_ADDRESS.check(maxConnectionsPerAddress);
    ApiSettings.HTTP_REQUEST_TIMEOUT.check(requestTimeout);
    ApiSettings.HTTP_MAX_PIPELINED.check(maxPipelined);
    ApiSettings.HTTP_CALL_TIMEOUT.check(callTimeout);
  }

  /** Reads {@code api.http.*}; {@code apiPort}: the gRPC port, whose 0 makes this port's default 0 too. */
  public static ApiHttpConfig from(ConfigSource c, int apiPort) {
    return new ApiHttpConfig(ApiSettings.HTTP_ENABLED.read(c),
        ApiSettings.HTTP_PORT.read(c, apiPort == 0 ? 0 : DEFAULT_PORT),
        ApiSettings.HTTP_MAX_CONNECTIONS.read(c), ApiSettings.HTTP_MAX_CONNECTIONS_PER_ADDRESS.read(c),
        ApiSettings.HTTP_REQUEST_TIMEOUT.read(c),
        ApiSettings.HTTP_MAX_PIPELINED.read(c), ApiSettings.HTTP_CALL_TIMEOUT.read(c));
  }

  /** Served on any free port with the default budgets. */
  public static ApiHttpConfig anyPort() {
    return from(ConfigSource.empty(), 0);
  }
}
