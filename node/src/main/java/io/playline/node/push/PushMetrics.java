package io.playline.node.push;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Supplier;

/**
 * Meters of progress push, registered once per node on the injected registry: syncs sent,
 * coalesced and dropped (backpressure), deliveries routed locally and to other nodes, messages
 * received from other nodes, pushes routed and every failure. Thread-safe.
 */
public final class PushMetrics {
  private final Counter syncsSent;
  private final Counter syncsCoalesced;
  private final Counter syncsDropped;
  private final Counter routedLocal;
  private final Counter routedRemote;
  private final Counter receivedRemote;
  private final Counter receivedStale;
  private final Counter routes;
  private final Counter expiredEntries;
  private final Counter registryErrors;
  private final Counter lookupErrors;
  private final Counter publishErrors;
  private final Counter receiveErrors;
  private final Counter lookupCommands;
  private final Counter joinsAnnounced;
  private final Counter joinsReceived;
  private final Counter channelSubscriptions;
  private final Counter registryCommands;

  public PushMetrics(MeterRegistry registry) {
    syncsSent = sync(registry, "sent");
    syncsCoalesced = sync(registry, "coalesced");
    syncsDropped = sync(registry, "dropped");
    routedLocal = Counter.builder("playline.push.routed").tag("to", "local")
        .description("Pushes handed to a connection of this node").register(registry);
    routedRemote = Counter.builder("playline.push.routed").tag("to", "remote")
        .description("Pushes published to another node's channel").register(registry);
    receivedRemote = Counter.builder("playline.push.remote.received")
        .description("Pushes received from other nodes").register(registry);
    receivedStale = Counter.builder("playline.push.remote.stale")
        .description("Pushes received for a user with no connection here (registry entry removed)").register(registry);
    routes = Counter.builder("playline.push.routes")
        .description("Pushes fully routed: registry looked up and every publish answered (or failed)").register(registry);
    expiredEntries = Counter.builder("playline.push.registry.expired")
        .description("Expired node entries pruned from the user-node registry").register(registry);
    registryErrors = error(registry, "registry");
    lookupErrors = error(registry, "lookup");
    publishErrors = error(registry, "publish");
    receiveErrors = error(registry, "receive");
    // Same meter as the write path's command count, so one query sums every Redis command.
    lookupCommands = Counter.builder("playline.redis.commands").tag("path", "push-lookup")
        .description("Redis commands sent").register(registry);
    registryCommands = Counter.builder("playline.redis.commands").tag("path", "push-registry")
        .description("Redis commands sent").register(registry);
    joinsAnnounced = Counter.builder("playline.push.registry.joins").tag("direction", "announced")
        .description("Join notices: sent to nodes already holding a user this node joined, and received")
        .register(registry);
    joinsReceived = Counter.builder("playline.push.registry.joins").tag("direction", "received")
        .description("Join notices: sent to nodes already holding a user this node joined, and received")
        .register(registry);
    channelSubscriptions = Counter.builder("playline.push.channel.subscriptions")
        .description("Subscriptions of this node's push channel: 1 at start, +1 per re-subscription after a "
            + "reconnect (each drops the cached registry lookups)")
        .register(registry);
  }

  public void channelSubscribed() {
    channelSubscriptions.increment();
  }

  public void joinAnnounced() {
    joinsAnnounced.increment();
  }

  public void joinReceived() {
    joinsReceived.increment();
  }

  /** One user-node registry lookup (HGETALL) sent to Redis. */
  public void lookupSent() {
    lookupCommands.increment();
  }

  /** User-node registry updates (HSET, PEXPIRE, HDEL) sent to Redis. */
  public void registryCommandsSent(int commands) {
    registryCommands.increment(commands);
  }

  private static Counter sync(MeterRegistry registry, String result) {
    return Counter.builder("playline.push.syncs").tag("result", result)
        .description("ProgressSync frames: sent, coalesced into a later one, dropped on backpressure")
        .register(registry);
  }

  private static Counter error(MeterRegistry registry, String stage) {
    return Counter.builder("playline.push.errors").tag("stage", stage).register(registry);
  }

  /** Reports {@code users} as the gauge of users with a connection on this node. */
  public void bindLocalUsers(MeterRegistry registry, Supplier<Number> users) {
    Gauge.builder("playline.push.users.local", users).register(registry);
  }

  public void syncSent() {
    syncsSent.increment();
  }

  public void syncCoalesced() {
    syncsCoalesced.increment();
  }

  public void syncDropped() {
    syncsDropped.increment();
  }

  public void routedLocal() {
    routedLocal.increment();
  }

  public void routedRemote() {
    routedRemote.increment();
  }

  public void receivedRemote() {
    receivedRemote.increment();
  }

  public void receivedStale() {
    receivedStale.increment();
  }

  public void routed() {
    routes.increment();
  }

  public void expired(int entries) {
    expiredEntries.increment(entries);
  }

  public void registryError() {
    registryErrors.increment();
  }

  public void lookupError() {
    lookupErrors.increment();
  }

  public void publishError() {
    publishErrors.increment();
  }

  public void receiveError() {
    receiveErrors.increment();
  }
}
