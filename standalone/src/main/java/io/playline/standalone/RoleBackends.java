package io.playline.standalone;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.playline.core.config.ConfigSource;
import java.io.IOException;
import java.nio.file.Files;
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
record RoleBackends(String redisUri, boolean redisCluster, String kafkaBootstrapServers, String hbaseQuorum,
    int hbaseZookeeperPort, String hbaseZnodeParent) {

  /** Which backends a role needs. */
  enum Need { REDIS, KAFKA, HBASE }

  /**
   * Resolves every backend {@code role} needs, or throws a {@link StartupException} listing each
   * missing address. Values set in config win over {@code backendsFile}.
   */
  static RoleBackends resolve(ConfigSource c, String role, List<Need> needs, @Nullable Path backendsFile) {
    Map<String, String> file = backendsFile == null ? Map.of() : read(backendsFile);
    Optional<String> redis = c.raw("redis.uri").or(() -> Optional.ofNullable(file.get("redis.uri")));
    Optional<String> kafka = c.raw("kafka.bootstrap.servers")
        .or(() -> Optional.ofNullable(file.get("kafka.bootstrap.servers")));
    Optional<String> quorum = c.raw("hbase.zookeeper.quorum")
        .or(() -> Optional.ofNullable(file.get("hbase.zookeeper.quorum")));
    List<String> missing = new ArrayList<>();
    check(needs.contains(Need.REDIS) && redis.isEmpty(), "redis.uri", "redis://host:6379", missing);
    check(needs.contains(Need.KAFKA) && kafka.isEmpty(), "kafka.bootstrap.servers", "host:9092,host2:9092", missing);
    check(needs.contains(Need.HBASE) && quorum.isEmpty(), "hbase.zookeeper.quorum", "zk1,zk2,zk3", missing);
    if (!missing.isEmpty()) {
      throw new StartupException("the " + role + " role needs the address of every backend it uses and has no "
          + "default for any: " + String.join("; ", missing) + (backendsFile == null
          ? " (or name an endpoints.json with --backends FILE)" : " (not in " + backendsFile + " either)"));
    }
    // Values from the file go through the same typed, range-checked getters as config values.
    ConfigSource merged = ConfigSource.empty().with(file).with(present(c, "redis.cluster", "hbase.zookeeper.port"));
    boolean cluster = merged.bool("redis.cluster", false);
    int zkPort = merged.port("hbase.zookeeper.port", 2181, false);
    return new RoleBackends(redis.orElse(""), cluster, kafka.orElse(""), quorum.orElse(""), zkPort,
        c.string("hbase.zookeeper.znode.parent", HConstants.DEFAULT_ZOOKEEPER_ZNODE_PARENT));
  }

  /** The values {@code c} sets of {@code keys}. */
  private static Map<String, String> present(ConfigSource c, String... keys) {
    Map<String, String> values = new LinkedHashMap<>();
    for (String key : keys) {
      c.raw(key).ifPresent(v -> values.put(key, v));
    }
    return values;
  }

  private static void check(boolean missing, String key, String example, List<String> out) {
    if (missing) {
      out.add(key + " is not set (" + ConfigSource.envName(key) + "=" + example + ", or --set " + key + "=...)");
    }
  }

  /** Reads the backend addresses of an {@code endpoints.json}. */
  private static Map<String, String> read(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new StartupException("--backends " + file + ": no such file (a running standalone writes "
          + "<data dir>/endpoints.json; the local topology writes deploy/local/run/endpoints.json)");
    }
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(file.toFile());
    } catch (IOException e) {
      throw new StartupException("--backends " + file + ": not readable JSON (" + e.getMessage() + ")", e);
    }
    Map<String, String> values = new LinkedHashMap<>();
    put(values, "redis.uri", root.path("redis").path("uri"));
    put(values, "redis.cluster", root.path("redis").path("cluster"));
    put(values, "kafka.bootstrap.servers", root.path("kafka").path("bootstrapServers"));
    put(values, "hbase.zookeeper.quorum", root.path("hbase").path("zookeeperQuorum"));
    put(values, "hbase.zookeeper.port", root.path("hbase").path("zookeeperPort"));
    return values;
  }

  private static void put(Map<String, String> values, String key, JsonNode node) {
    if (!node.isMissingNode() && !node.isNull() && !node.asText().isEmpty()) {
      values.put(key, node.asText());
    }
  }

  /** {@code config} with {@code redis.cluster} as resolved here (it may have come from the backends file). */
  ConfigSource applyTo(ConfigSource config) {
    return config.with(Map.of("redis.cluster", Boolean.toString(redisCluster)));
  }

  /** A client configuration for this HBase. */
  Configuration hbaseConfiguration() {
    Configuration conf = HBaseConfiguration.create();
    conf.set(HConstants.ZOOKEEPER_QUORUM, hbaseQuorum);
    conf.setInt(HConstants.ZOOKEEPER_CLIENT_PORT, hbaseZookeeperPort);
    conf.set(HConstants.ZOOKEEPER_ZNODE_PARENT, hbaseZnodeParent);
    return conf;
  }
}
