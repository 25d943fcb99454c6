package io.playline.api.config;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import io.playline.node.auth.Hs256;
import io.playline.node.settings.NodeSettings;

/**
 * Who may call the internal API, where it listens and how many may connect: service tokens signed
 * with {@code api.secret} ({@code PLAYLINE_API_SECRET}), {@code api.bind.host} (default: {@code
 * bind.host}), separate from the players' bind address so the API can stay on an internal
 * interface, and caps on its TCP connections and their resets.
 *
 * @param secret the HS256 key service tokens are signed with (at least 32 bytes, and not the
 *     player-token key {@code auth.secret}: a key that signs player tokens must not open the API)
 * @param bindHost the address the API binds
 * @param port the gRPC port ({@code api.port}; 0 = any free port)
 * @param maxConnections TCP connections open on the API port of this node ({@code api.max.connections})
 * @param maxConnectionsPerAddress of those, from one address ({@code api.max.connections.per.address})
 * @param maxRstFramesPerWindow resets one connection may send or be sent per {@code grpc.rst.window}
 *     ({@code api.max.rst.frames.per.window}; the player port's is {@code grpc.max.rst.frames.per.window})
 * @param http the HTTP (Connect) port and its budgets
 */
public record ApiConfig(String secret, String bindHost, int port, int maxConnections, int maxConnectionsPerAddress,
    int maxRstFramesPerWindow, ApiHttpConfig http) {
  public static final String SECRET_KEY = ApiSettings.SECRET.key();

  public ApiConfig {
    try {
      Hs256.checkSecret(SECRET_KEY, secret);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
    if (bindHost.isBlank()) {
      throw new ConfigException("api.bind.host: blank (expected: an address to bind)");
    }
    ApiSettings.PORT.check(port);
    ApiSettings.MAX_CONNECTIONS.check(maxConnections);
    ApiSettings.MAX_CONNECTIONS_PER_ADDRESS.check(maxConnectionsPerAddress);
    ApiSettings.MAX_RST_FRAMES.check(maxRstFramesPerWindow);
  }

  /** On any free port with the default connection caps, HTTP too with its default budgets (tests, tools). */
  public ApiConfig(String secret, String bindHost) {
    this(secret, bindHost, 0, ApiSettings.MAX_CONNECTIONS.defaultValue().orElseThrow(),
        ApiSettings.MAX_CONNECTIONS_PER_ADDRESS.defaultValue().orElseThrow(),
        ApiSettings.MAX_RST_FRAMES.defaultValue().orElseThrow(), ApiHttpConfig.anyPort());
  }

  /**
   * Reads {@code api.port}, {@code api.bind.host}, the caps and {@code api.http.*}; {@code secret}
   * is the already-resolved {@code api.secret}.
   */
  public static ApiConfig from(ConfigSource c, String secret, String playerSecret) {
    if (secret.equals(playerSecret)) {
      throw new ConfigException(SECRET_KEY + ": the same key as auth.secret (expected: a key of its own; whoever "
          + "can sign player tokens must not be able to sign service tokens for the internal API)");
    }
    int port = ApiSettings.PORT.read(c);
    return new ApiConfig(secret, ApiSettings.BIND_HOST.read(c, NodeSettings.BIND_HOST.read(c)), port,
        ApiSettings.MAX_CONNECTIONS.read(c), ApiSettings.MAX_CONNECTIONS_PER_ADDRESS.read(c),
        ApiSettings.MAX_RST_FRAMES.read(c), ApiHttpConfig.from(c, port));
  }

  @Override
  public String toString() {
    return "ApiConfig[bindHost=" + bindHost + ", port=" + port + ", secret=<" + secret.length()
        + " chars>, maxConnections=" + maxConnections + ", maxConnectionsPerAddress=" + maxConnectionsPerAddress
        + ", maxRstFramesPerWindow=" + maxRstFramesPerWindow + ", http=" + http + "]";
  }
}
