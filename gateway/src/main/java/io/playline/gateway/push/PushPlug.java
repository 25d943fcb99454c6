package io.playline.gateway.push;

import io.micrometer.core.instrument.MeterRegistry;
import io.playline.node.Node;
import io.playline.node.push.PushConfig;
import io.playline.time.Time;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Progress push plugged into a {@link Node}: the node starts it once its Redis is up, makes its
 * router the batcher's applied-records listener, and closes it after the batcher. Every node that
 * writes (the player edge's, the api role's) pushes, so a report reaches the user's devices too.
 *
 * <p>{@link #runtime()} is valid once the node has started; thread-safe.
 */
public final class PushPlug implements Node.AppliedStarter {
  private final String nodeId;
  private final PushConfig config;
  private final boolean crossNode;
  private volatile @Nullable PushRuntime runtime;

  /**
   * @param crossNode whether pushes reach other nodes through Redis; false keeps them on this node
   *     (a single-node deployment, or a test of one node)
   */
  public PushPlug(String nodeId, PushConfig config, boolean crossNode) {
    this.nodeId = nodeId;
    this.config = config;
    this.crossNode = crossNode;
  }

  @Override
  public Node.Applied start(Node.Core core, MeterRegistry registry, Time time) {
    PushRuntime p = PushRuntime.start(nodeId, config, core.config().redisKeyPrefix(), crossNode ? core.redis() : null,
        registry, time);
    runtime = p;
    return new Node.Applied(p.router(), p);
  }

  /** The push the node started. @throws NullPointerException before the node started */
  public PushRuntime runtime() {
    return Objects.requireNonNull(runtime, "the node has not started push");
  }
}
