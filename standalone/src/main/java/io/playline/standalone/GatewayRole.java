package io.playline.standalone;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.playline.core.config.ConfigSource;
import io.playline.gateway.GatewayConfig;
import io.playline.gateway.GatewayNode;
import io.playline.gateway.ws.DemoPage;
import io.playline.standalone.RoleBackends.Need;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.client.Connection;

/**
 * {@code bin/playline gateway}: one gateway node against external Redis (or Redis Cluster), Kafka
 * and HBase. Serves players everything the stream offers (heartbeats, acks, first-today, progress
 * and history queries, deletes, clears, cross-device push through Redis) and the admin port. No
 * internal API (that is the api role) and no job. Refuses to start without {@code auth.secret} or
 * any backend address. Thread-safe to close from a shutdown hook.
 */
final class GatewayRole implements Role {
  static final List<Need> NEEDS = List.of(Need.REDIS, Need.KAFKA, Need.HBASE);

  private final RoleParts parts = new RoleParts();
  private final GatewayNode node;

  private GatewayRole(ConfigSource config, RoleBackends backends) {
    try {
      String secret = Secrets.playerSecret(config, false);
      GatewayConfig gateway = GatewayConfig.from(config, secret);
      DemoPage demo = Demo.page(config, false, secret, false);
      PrometheusMeterRegistry registry = parts.meters();
      Connection hbase = parts.hbase(backends.hbaseConfiguration());
      node = parts.add(GatewayNode.builder(gateway).registry(registry).demo(demo)
          .core(GatewayNode.historyCore(backends.applyTo(config), backends.redisUri(), backends.kafkaBootstrapServers(),
              gateway.nodeId(), hbase))
          .start());
      parts.add(GatewayRole.backendHealth(node, backends.kafkaBootstrapServers(), hbase)).start(BackendHealth.PERIOD);
    } catch (RuntimeException e) {
      parts.close();
      throw e;
    }
  }

  /** Connects and binds; on failure whatever started is stopped again. */
  static GatewayRole start(ConfigSource config, RoleBackends backends) {
    return new GatewayRole(config, backends);
  }

  GatewayNode node() {
    return node;
  }

  @Override
  public Map<String, String> addresses() {
    return Addresses.of(node, null);
  }

  @Override
  public void close() {
    parts.close();
  }

  /** A node's health: its Redis and readiness, and the Kafka and HBase it uses (the job role builds its own). */
  static BackendHealth backendHealth(GatewayNode node, String kafkaBootstrapServers, Connection hbase) {
    return new BackendHealth(node.core().redis().shared(), kafkaBootstrapServers, node.core().config().kafkaClients(),
        hbase, node.readiness());
  }
}
