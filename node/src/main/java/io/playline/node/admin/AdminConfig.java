package io.playline.node.admin;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import io.playline.node.settings.NodeSettings;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Who may reach the admin HTTP port: the address it binds ({@code admin.bind.host}, default {@code
 * bind.host}) and, when set, the bearer token {@code /metrics} requires ({@code admin.token},
 * {@code PLAYLINE_ADMIN_TOKEN}, at least {@value #MIN_TOKEN_CHARS} characters). {@code /livez},
 * {@code /healthz} and {@code /readyz} stay open: orchestrators and load balancers probe them.
 *
 * @param bindHost address the admin server binds
 * @param token what {@code Authorization: Bearer} must carry for {@code /metrics}; null = open
 * @param maxConnections open admin connections; more are closed at accept ({@code
 *     admin.max.connections}, 64)
 * @param maxConnectionsPerAddress of those, from one address ({@code admin.max.connections.per.address})
 * @param requestTimeout a connection must deliver a whole request this soon after connecting or
 *     after its previous request ({@code admin.request.timeout}, 10s)
 */
public record AdminConfig(String bindHost, @Nullable String token, int maxConnections, int maxConnectionsPerAddress,
    Duration requestTimeout) {
  public static final int MIN_TOKEN_CHARS = 16;

  public AdminConfig {
    NodeSettings.ADMIN_MAX_CONNECTIONS.check(maxConnections);
    NodeSettings.ADMIN_MAX_CONNECTIONS_PER_ADDRESS.check(maxConnectionsPerAddress);
    NodeSettings.ADMIN_REQUEST_TIMEOUT.check(requestTimeout);
    if (bindHost.isBlank()) {
      throw new ConfigException("admin.bind.host: blank (expected: an address to bind)");
    }
    if (token != null && token.length() < MIN_TOKEN_CHARS) {
      throw new ConfigException("admin.token: " + token.length() + " characters (expected: at least "
          + MIN_TOKEN_CHARS + ", or unset for an open /metrics)");
    }
  }

  /** Reads {@code admin.bind.host} and {@code admin.token}. */
  public static AdminConfig from(ConfigSource c) {
    String token = NodeSettings.ADMIN_TOKEN.read(c).orElse("");
    return new AdminConfig(NodeSettings.ADMIN_BIND_HOST.read(c, NodeSettings.BIND_HOST.read(c)),
        token.isEmpty() ? null : token, NodeSettings.ADMIN_MAX_CONNECTIONS.read(c),
        NodeSettings.ADMIN_MAX_CONNECTIONS_PER_ADDRESS.read(c), NodeSettings.ADMIN_REQUEST_TIMEOUT.read(c));
  }

  /** Open on {@code bindHost}, no token, the default budgets (tests, tools). */
  public static AdminConfig open(String bindHost) {
    return new AdminConfig(bindHost, null, NodeSettings.ADMIN_MAX_CONNECTIONS.defaultValue().orElseThrow(),
        NodeSettings.ADMIN_MAX_CONNECTIONS_PER_ADDRESS.defaultValue().orElseThrow(),
        NodeSettings.ADMIN_REQUEST_TIMEOUT.defaultValue().orElseThrow());
  }

  /** Whether an {@code Authorization} header value lets its request read {@code /metrics}. */
  boolean permits(@Nullable String authorization) {
    String expected = token;
    if (expected == null) {
      return true;
    }
    if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return false;
    }
    byte[] given = authorization.substring(7).trim().getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(given, expected.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public String toString() {
    return "AdminConfig[bindHost=" + bindHost + ", token=" + (token == null ? "none" : "set") + ", maxConnections="
        + maxConnections + ", requestTimeout=" + requestTimeout + "]";
  }
}
