package io.playline.node;

import io.micrometer.core.instrument.MeterRegistry;
import io.playline.node.push.NodeChannels;
import io.playline.node.push.PushConfig;
import io.playline.node.push.PushKeys;
import io.playline.node.push.PushMetrics;
import io.playline.node.push.PushRouter;
import io.playline.node.push.RedisUserNodesRegistry;
import io.playline.time.Time;

/**
 * Progress push for a node that writes but holds no players (the api role), plugged into its
 * {@link Node}: every record the batcher applies is published to the other nodes holding the user
 * ({@link PushRouter}, with no connections of its own), so a report reaches the user's devices. The
 * node never joins a user's registry and listens on no channel. In the root package, as what plugs
 * the push package into a {@code Node}: the subpackages never depend on this one. Thread-safe.
 */
public final class PublishingPush implements Node.AppliedStarter {
  private final String nodeId;
  private final PushConfig config;

  public PublishingPush(String nodeId, PushConfig config) {
    this.nodeId = nodeId;
    this.config = config;
  }

  @Override
  public Node.Applied start(Node.Core core, MeterRegistry registry, Time time) {
    PushMetrics metrics = new PushMetrics(registry);
    PushKeys keys = new PushKeys(core.config().redisKeyPrefix());
    RedisUserNodesRegistry userNodes = new RedisUserNodesRegistry(core.redis().shared(), keys, nodeId,
        config.registryTtl(), config.lookupCache(), config.aloneCache(), time.clock(), metrics);
    userNodes.holdersFrom(uid -> false);
    PushRouter router = new PushRouter(push -> { }, userNodes, NodeChannels.redis(core.redis().shared(), keys),
        metrics);
    return new Node.Applied(router, () -> { });
  }
}
