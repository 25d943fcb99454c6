package io.playline.roles;

import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreSettings;
import io.playline.core.config.Setting;
import io.playline.roles.endpoints.Endpoints;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.jspecify.annotations.Nullable;

/**
 * The external backends a role process (gateway, api, job) talks to, resolved strictly: from
 * config ({@code redis.uri}, {@code redis.cluster}, {@code kafka.bootstrap.servers}, {@code
 * hbase.zookeeper.quorum}, {@code hbase.zookeeper.port}), else from an endpoints file named on the
 * command line ({@code --backends}: a standalone's {@code endpoints.json} or the local topology's
 * {@code backends.json}); {@code hbase.zookeeper.znode.parent} comes from config only. A role never falls back to a default address: a
 * missing one stops start-up with a message naming the key, its environment variable and the
 * file option. Immutable.
 *
 * @param redisUri a Redis URI; with {@code redisCluster}, one seed node of a Redis Cluster
 * @param redisCluster whether {@code redisUri} is a Redis Cluster ({@code redis.cluster})
 * @param kafkaBootstrapServers Kafka bootstrap servers
 * @param hbaseQuorum HBase's ZooKeeper quorum hosts
 * @param hbaseZookeeperPort HBase's ZooKeeper client port (default 2181)
 * @param hbaseZnodeParent HBase's root znode ({@code hbase.zookeeper.znode.parent}, default /hbase)
 */
public record RoleBackends(String redisUri, boolean redisCluster, String kafkaBootstrapServers, String hbaseQuorum,
    int hbaseZookeeperPort, String hbaseZnodeParent) {

  /** Which backends a role needs. */
  public enum Need { REDIS, KAFKA, HBASE }

  /**
   * Resolves every backend {@code role} needs, or throws a {@link StartupException} listing each
   * missing address. Values set in config win over {@code backendsFile}.
   */
  public static RoleBackends resolve(ConfigSource c, String role, List<Need> needs, @Nullable Path backendsFile) {
    Map<String, String> file = backendsFile == null ? Map.of() : read(backendsFile);
    Optional<String> redis = address(c, file, RoleSettings.REDIS_URI);
    Optional<String> kafka = address(c, file, RoleSettings.KAFKA_BOOTSTRAP_SERVERS);
    Optional<String> quorum = address(c, file, RoleSettings.HBASE_ZOOKEEPER_QUORUM);
    List<String> missing = new ArrayList<>();
    check(needs.contains(Need.REDIS) && redis.isEmpty(), RoleSettings.REDIS_URI, "redis://host:6379", missing);
    check(needs.contains(Need.KAFKA) && kafka.isEmpty(), RoleSettings.KAFKA_BOOTSTRAP_SERVERS,
        "host:9092,host2:9092", missing);
    check(needs.contains(Need.HBASE) && quorum.isEmpty(), RoleSettings.HBASE_ZOOKEEPER_QUORUM, "zk1,zk2,zk3",
        missing);
    if (!missing.isEmpty()) {
      throw new StartupException("the " + role + " role needs the address of every backend it uses and has no "
          + "default for any: " + String.join("; ", missing) + (backendsFile == null
          ? " (or name an endpoints.json with --backends FILE)" : " (not in " + backendsFile + " either)"));
    }
    // Values from the file go through the same typed, range-checked getters as config values.
    ConfigSource merged = ConfigSource.empty().with(file)
        .with(present(c, CoreSettings.REDIS_CLUSTER, RoleSettings.HBASE_ZOOKEEPER_PORT));
    boolean cluster = CoreSettings.REDIS_CLUSTER.read(merged);
    int zkPort = RoleSettings.HBASE_ZOOKEEPER_PORT.read(merged);
    return new RoleBackends(redis.orElse(""), cluster, kafka.orElse(""), quorum.orElse(""), zkPort,
        RoleSettings.HBASE_ZOOKEEPER_ZNODE_PARENT.read(c));
  }

  /** The address {@code c} sets, else the one {@code file} holds. */
  private static Optional<String> address(ConfigSource c, Map<String, String> file, Setting<Optional<String>> setting) {
    return setting.read(c).or(() -> Optional.ofNullable(file.get(setting.key())));
  }

  /** The values {@code c} sets of {@code settings}, by key. */
  private static Map<String, String> present(ConfigSource c, Setting<?>... settings) {
    Map<String, String> values = new LinkedHashMap<>();
    for (Setting<?> setting : settings) {
      c.raw(setting.key()).ifPresent(v -> values.put(setting.key(), v));
    }
    return values;
  }

  private static void check(boolean missing, Setting<?> setting, String example, List<String> out) {
    if (missing) {
      String key = setting.key();
      out.add(key + " is not set (" + ConfigSource.envName(key) + "=" + example + ", or --set " + key + "=...)");
    }
  }

  /** The backend addresses an {@code endpoints.json} holds, by the key that would set each. */
  private static Map<String, String> read(Path file) {
    Endpoints e;
    try {
      e = Endpoints.read(file);
    } catch (IOException ex) {
      throw new StartupException("--backends " + ex.getMessage(), ex);
    }
    Map<String, String> values = new LinkedHashMap<>();
    e.redisUri().ifPresent(v -> values.put(RoleSettings.REDIS_URI.key(), v));
    e.redisCluster().ifPresent(v -> values.put(CoreSettings.REDIS_CLUSTER.key(), v.toString()));
    e.kafkaBootstrapServers().ifPresent(v -> values.put(RoleSettings.KAFKA_BOOTSTRAP_SERVERS.key(), v));
    e.hbaseZookeeperQuorum().ifPresent(v -> values.put(RoleSettings.HBASE_ZOOKEEPER_QUORUM.key(), v));
    e.hbaseZookeeperPort().ifPresent(v -> values.put(RoleSettings.HBASE_ZOOKEEPER_PORT.key(), v.toString()));
    return values;
  }

  /** {@code config} with {@code redis.cluster} as resolved here (it may have come from the backends file). */
  public ConfigSource applyTo(ConfigSource config) {
    return config.with(Map.of(CoreSettings.REDIS_CLUSTER.key(), Boolean.toString(redisCluster)));
  }

  /** A client configuration for this HBase. */
  public Configuration hbaseConfiguration() {
    Configuration conf = HBaseConfiguration.create();
    conf.set(HConstants.ZOOKEEPER_QUORUM, hbaseQuorum);
    conf.setInt(HConstants.ZOOKEEPER_CLIENT_PORT, hbaseZookeeperPort);
    conf.set(HConstants.ZOOKEEPER_ZNODE_PARENT, hbaseZnodeParent);
    return conf;
  }
}
