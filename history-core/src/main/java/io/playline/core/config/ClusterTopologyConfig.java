package io.playline.core.config;

import java.time.Duration;

/**
 * How the Redis Cluster client follows topology changes (failovers, resharding, nodes joining):
 * it re-reads the topology every {@code refreshPeriod}, and at once when a command is redirected
 * ({@code MOVED}/{@code ASK}), a node keeps refusing reconnects, a slot has no master or a node is
 * unknown, but at most once per {@code adaptiveRefreshTimeout}. Ignored without {@code
 * redis.cluster}. Defaults and ranges are in docs/configuration.md, checked on construction. Immutable.
 *
 * @param refreshPeriod periodic topology refresh ({@code redis.cluster.refresh.period}): the latest
 *     a change nothing else noticed is followed
 * @param adaptiveRefreshTimeout least time between two refreshes triggered by events ({@code
 *     redis.cluster.refresh.adaptive.timeout}). A killed master triggers one at
 *     once, before its replica is promoted; the next trigger is taken at the earliest this much
 *     later, so it bounds how long after the promotion commands to those slots keep failing
 */
public record ClusterTopologyConfig(Duration refreshPeriod, Duration adaptiveRefreshTimeout) {
  public ClusterTopologyConfig {
    CoreSettings.REDIS_CLUSTER_REFRESH_PERIOD.check(refreshPeriod);
    CoreSettings.REDIS_CLUSTER_REFRESH_ADAPTIVE_TIMEOUT.check(adaptiveRefreshTimeout);
  }

  /** Reads {@code redis.cluster.refresh.period} and {@code redis.cluster.refresh.adaptive.timeout}. */
  public static ClusterTopologyConfig from(ConfigSource source) {
    return new ClusterTopologyConfig(
        CoreSettings.REDIS_CLUSTER_REFRESH_PERIOD.read(source),
        CoreSettings.REDIS_CLUSTER_REFRESH_ADAPTIVE_TIMEOUT.read(source));
  }

  /** The defaults, as docs/configuration.md lists them. */
  public static ClusterTopologyConfig defaults() {
    return from(ConfigSource.empty());
  }
}
