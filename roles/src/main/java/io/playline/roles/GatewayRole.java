package io.playline.roles;

import io.playline.core.config.ConfigSource;
import io.playline.gateway.PlayerEdge;
import io.playline.gateway.config.AuthSettings;
import io.playline.gateway.config.GatewayConfig;
import io.playline.gateway.push.PushPlug;
import io.playline.gateway.ws.DemoPage;
import io.playline.node.Node;
import io.playline.node.NodeConfig;
import io.playline.roles.RoleBackends.Need;
import io.playline.time.Time;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * {@code bin/playline gateway}: one gateway node against external Redis (or Redis Cluster), Kafka
 * and HBase. Serves players everything the stream offers (heartbeats, acks, first-today, progress
 * and history queries, deletes, clears, cross-device push through Redis) and the admin port. No
 * internal API (that is the api role) and no job. Refuses to start without {@code auth.secret} or
 * any backend address. Thread-safe to close from a shutdown hook.
 */
public final class GatewayRole implements Role {
  public static final List<Need> NEEDS = List.of(Need.REDIS, Need.KAFKA, Need.HBASE);

  private final RoleParts parts = new RoleParts();
  private final Node node;
  private final PlayerEdge edge;

  private GatewayRole(ConfigSource config, RoleBackends backends, Time time) {
    try {
      String secret = playerSecret(config);
      NodeConfig nodeConfig = NodeConfig.from(config);
      GatewayConfig gateway = GatewayConfig.from(config, secret);
      DemoPage demo = Demo.page(config, false, secret, false, time);
      PushPlug push = new PushPlug(nodeConfig.nodeId(), gateway.push(), true);
      node = parts.add(Node.builder(nodeConfig).registry(parts.meters()).time(time).applied(push)
          .core(Node.historyCore(backends.applyTo(config), backends.redisUri(), backends.kafkaBootstrapServers(),
              nodeConfig.nodeId(), backends.hbaseConfiguration()))
          .start());
      edge = PlayerEdge.attach(node, gateway, push, demo);
      parts.add(BackendHealth.of(node, backends.kafkaBootstrapServers())).start(BackendHealth.PERIOD);
    } catch (RuntimeException e) {
      parts.close();
      throw e;
    }
  }

  /**
   * The HS256 key of player tokens: {@code auth.secret}; null when it is unset and {@code
   * auth.jwks.url} is set (RS256/ES256 tokens only); refused when neither is set.
   */
  private static @Nullable String playerSecret(ConfigSource config) {
    if (AuthSettings.SECRET.read(config).isEmpty() && AuthSettings.JWKS_URL.read(config).isPresent()) {
      return null;
    }
    return Secrets.resolve(config, false).secret();
  }

  /** Connects and binds, on {@code time}; on failure whatever started is stopped again. */
  public static GatewayRole start(ConfigSource config, RoleBackends backends, Time time) {
    return new GatewayRole(config, backends, time);
  }

  /** The player edge this role serves. */
  public PlayerEdge edge() {
    return edge;
  }

  /** Where {@code edge} serves players: its WebSocket URI and gRPC host:port, on loopback. */
  public static Map<String, String> playerAddresses(Node node, PlayerEdge edge) {
    Map<String, String> players = new LinkedHashMap<>();
    players.put("websocket", (node.tls() != null ? "wss" : "ws") + "://127.0.0.1:" + edge.wsAddress().getPort()
        + GatewayConfig.WS_PATH);
    players.put("grpc", "127.0.0.1:" + edge.grpcAddress().getPort());
    return players;
  }

  @Override
  public Map<String, String> addresses() {
    return Addresses.of(node, playerAddresses(node, edge), null);
  }

  @Override
  public void close() {
    parts.close();
  }
}
