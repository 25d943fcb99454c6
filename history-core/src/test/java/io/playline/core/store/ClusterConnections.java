package io.playline.core.store;

import io.playline.core.config.ClusterTopologyConfig;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.testing.RedisClusterNamespace;
import io.playline.time.Time;
import java.time.Duration;
import java.util.Map;

/** Connects history-core to the test JVM's real Redis Cluster, as {@code redis.cluster=true} does. */
public final class ClusterConnections {
  private ClusterConnections() {}

  /** Cluster connections on {@code ns}'s cluster, topology followed as {@code topology} says. */
  public static RedisConnections connect(RedisClusterNamespace ns, Duration timeout, ClusterTopologyConfig topology) {
    return RedisConnections.connect(ns.seedUri(), true, timeout, null, topology, Time.SYSTEM);
  }

  /** Default config under {@code ns}'s key prefix, with {@code overrides}. */
  public static CoreConfig config(RedisClusterNamespace ns, Map<String, String> overrides) {
    return CoreConfig.from(ConfigSource.empty().with(Map.of("redis.key.prefix", ns.keyPrefix())).with(overrides));
  }
}
