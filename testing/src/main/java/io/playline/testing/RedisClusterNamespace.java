package io.playline.testing;

import io.playline.embedded.EmbeddedRedisCluster;
import java.util.Objects;

/**
 * One test's share of the test JVM's real Redis Cluster: every key the test touches starts with
 * {@link #keyPrefix()}, which no other test uses, and {@link #cluster()} injects faults.
 *
 * <p>Isolation is by prefix only; the cluster is shared, so a test must not use commands that span
 * whole nodes ({@code FLUSHALL}, {@code KEYS *}), and a test that kills a node must restore the
 * cluster ({@link EmbeddedRedisCluster#restart}) before it ends, whatever its outcome.
 *
 * @param cluster the shared cluster
 * @param keyPrefix unique to this test, e.g. {@code "t3f09a2c17:"}; no hash tag, so keys built
 *     on it spread over the slots by their own hash tags
 */
public record RedisClusterNamespace(EmbeddedRedisCluster cluster, String keyPrefix) {

  public RedisClusterNamespace {
    Objects.requireNonNull(cluster, "cluster");
    if (keyPrefix.isEmpty() || keyPrefix.contains("{") || keyPrefix.contains("}")) {
      throw new IllegalArgumentException("keyPrefix: '" + keyPrefix + "' (expected: a unique prefix without braces)");
    }
  }

  /** Returns a running node's URI, {@code "redis://127.0.0.1:PORT"}: a cluster client's seed. */
  public String seedUri() {
    return cluster.seedUri();
  }

  /** Returns {@code keyPrefix() + suffix}: the same key for the same suffix within this test. */
  public String key(String suffix) {
    return keyPrefix + suffix;
  }
}
