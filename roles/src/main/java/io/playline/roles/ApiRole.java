package io.playline.roles;

import io.playline.api.ApiServer;
import io.playline.api.config.ApiConfig;
import io.playline.core.config.ConfigSource;
import io.playline.node.Node;
import io.playline.node.NodeConfig;
import io.playline.node.auth.TokenKeySettings;
import io.playline.node.PublishingPush;
import io.playline.node.push.PushConfig;
import io.playline.roles.RoleBackends.Need;
import io.playline.time.Time;
import java.util.List;
import java.util.Map;

/**
 * {@code bin/playline api}: the internal {@code playline.v1.History} API (plus health and
 * reflection) on {@code api.port}, for backends, against external Redis (or Redis Cluster), Kafka
 * and HBase; and the admin port. Every call but health needs a service token signed with {@code
 * api.secret}, which it refuses to start without. It accepts no players: its node writes reports through the same
 * batched write path, first-today and cross-node push as a gateway node. Refuses to start without
 * any backend address. Thread-safe to close from a shutdown hook.
 */
public final class ApiRole implements Role {
  public static final List<Need> NEEDS = List.of(Need.REDIS, Need.KAFKA, Need.HBASE);

  private final RoleParts parts = new RoleParts();
  private final Node node;
  private final ApiServer api;

  private ApiRole(ConfigSource config, RoleBackends backends, Time time) {
    // Checked before anything connects: a role without its key must not start at all.
    ApiConfig access = ApiConfig.from(config, Secrets.resolveApi(config, false).secret(),
        TokenKeySettings.PLAYER_SECRET.read(config).orElse(""));
    try {
      NodeConfig nodeConfig = NodeConfig.from(config);
      node = parts.add(Node.builder(nodeConfig).registry(parts.meters()).time(time)
          .applied(new PublishingPush(nodeConfig.nodeId(), PushConfig.from(config)))
          .core(Node.historyCore(backends.applyTo(config), backends.redisUri(), backends.kafkaBootstrapServers(),
              nodeConfig.nodeId(), backends.hbaseConfiguration()))
          .start());
      api = ApiServer.attach(node, access);
      parts.add(BackendHealth.of(node, backends.kafkaBootstrapServers())).start(BackendHealth.PERIOD);
    } catch (RuntimeException e) {
      parts.close();
      throw e;
    }
  }

  /** Connects and binds, on {@code time}; on failure whatever started is stopped again. */
  public static ApiRole start(ConfigSource config, RoleBackends backends, Time time) {
    return new ApiRole(config, backends, time);
  }

  public ApiServer api() {
    return api;
  }

  @Override
  public Map<String, String> addresses() {
    return Addresses.of(node, Map.of(), api);
  }

  @Override
  public void close() {
    parts.close();
  }
}
