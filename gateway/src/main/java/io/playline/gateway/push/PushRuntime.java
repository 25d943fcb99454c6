package io.playline.gateway.push;

import io.micrometer.core.instrument.MeterRegistry;
import io.playline.core.store.RedisConnections;
import io.playline.node.push.NodeChannels;
import io.playline.node.push.PushConfig;
import io.playline.node.push.PushKeys;
import io.playline.node.push.PushMetrics;
import io.playline.node.push.PushRouter;
import io.playline.node.push.PushService;
import io.playline.node.push.RedisUserNodesRegistry;
import io.playline.node.push.RegistryListener;
import io.playline.node.push.UserNodesRegistry;
import io.playline.node.write.AppliedListener;
import io.playline.time.Time;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Progress push for one gateway node, wired and closed together: the local {@link
 * ConnectionRegistry}, the shared {@link UserNodesRegistry} and the node channels in Redis (or,
 * without Redis, this node alone), and the {@link PushRouter} that is both the heartbeat
 * batcher's {@link AppliedListener} and the backends' {@link PushService}.
 *
 * <p>{@link #start} and {@link #close} block (bounded) and belong to start-up and shutdown; the
 * parts it hands out are thread-safe and non-blocking.
 */
public final class PushRuntime implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PushRuntime.class);
  private static final Duration SUBSCRIBE_TIMEOUT = Duration.ofSeconds(10);
  private static final long CLOSE_TIMEOUT_MS = 2_000;

  private final ConnectionRegistry connections;
  private final UserNodesRegistry userNodes;
  private final @Nullable RedisUserNodesRegistry shared;
  private final PushRouter router;
  private final @Nullable RedisNodeChannels channels;

  private PushRuntime(ConnectionRegistry connections, UserNodesRegistry userNodes, @Nullable RedisUserNodesRegistry shared,
      PushRouter router, @Nullable RedisNodeChannels channels) {
    this.connections = connections;
    this.userNodes = userNodes;
    this.shared = shared;
    this.router = router;
    this.channels = channels;
  }

  /**
   * Starts push for node {@code nodeId}: with {@code redis}, registers users under {@code
   * keyPrefix} and subscribes to this node's channel (waiting for Redis to confirm); without it,
   * pushes reach this node's connections only. Registry entries expire, and sync windows end, by
   * the node's {@code time}.
   */
  public static PushRuntime start(String nodeId, PushConfig config, String keyPrefix, @Nullable RedisConnections redis,
      MeterRegistry registry, Time time) {
    PushMetrics metrics = new PushMetrics(registry);
    PushKeys keys = new PushKeys(keyPrefix);
    RedisUserNodesRegistry shared = redis == null ? null
        : new RedisUserNodesRegistry(redis.shared(), keys, nodeId, config.registryTtl(), config.lookupCache(),
            config.aloneCache(), time.clock(), metrics);
    UserNodesRegistry userNodes = shared == null ? UserNodesRegistry.LOCAL : shared;
    ConnectionRegistry connections = new ConnectionRegistry(userNodes, config, metrics, time);
    if (shared != null) {
      shared.holdersFrom(connections::holds);
    }
    metrics.bindLocalUsers(registry, connections::users);
    RedisNodeChannels channels = redis == null ? null
        : RedisNodeChannels.subscribe(redis, keys, nodeId, connections, userNodes, metrics, SUBSCRIBE_TIMEOUT, time);
    if (shared != null) {
      shared.announceJoinsThrough(channels);
    }
    NodeChannels route = channels == null ? NodeChannels.NONE : channels;
    if (redis == null) {
      log.info("Push: no Redis given; progress syncs reach this node's connections only");
    }
    PushRouter router = new PushRouter(connections::deliver, userNodes, route, metrics);
    return new PushRuntime(connections, userNodes, shared, router, channels);
  }

  /**
   * How many live nodes other than this one hold a connection of {@code uid}: the registry's cached
   * answer when it has one, else a read of it (none without Redis). Never blocks.
   */
  public CompletionStage<Integer> otherNodes(long uid) {
    return userNodes.otherNodes(uid).thenApply(List::size);
  }

  /** Tells {@code listener} what the registry reads and hears of other nodes (nothing without Redis). */
  public void reportTo(RegistryListener listener) {
    if (shared != null) {
      shared.reportTo(listener);
    }
  }

  /** Where {@code StreamSession}s register their connection once authenticated. */
  public ConnectionRegistry connections() {
    return connections;
  }

  /** What the node's batcher tells about applied records. */
  public AppliedListener router() {
    return router;
  }

  /** The backends' entry point. */
  public PushService service() {
    return router;
  }

  /**
   * Stops listening to other nodes and removes this node from the registry entries of the users
   * it holds (each bounded to a few seconds). Connections still open stay reachable locally.
   */
  @Override
  public void close() {
    if (channels != null) {
      channels.close();
    }
    connections.close(CLOSE_TIMEOUT_MS);
  }
}
