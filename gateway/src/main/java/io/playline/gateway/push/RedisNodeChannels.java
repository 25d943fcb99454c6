package io.playline.gateway.push;

import com.google.protobuf.InvalidProtocolBufferException;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.playline.core.store.RedisConnections;
import io.playline.node.push.JoinNotice;
import io.playline.node.push.NodeChannels;
import io.playline.node.push.NodeMessage;
import io.playline.node.push.PushKeys;
import io.playline.node.push.PushMessage;
import io.playline.node.push.PushMetrics;
import io.playline.node.push.UserNodesRegistry;
import io.playline.time.Time;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Node-to-node push over Redis pub/sub: this node subscribes to its own channel ({@link
 * PushKeys#channel}) on a dedicated pub/sub connection and hands the pushes that arrive to its
 * {@link ConnectionRegistry}, and {@link JoinNotice}s to its {@link UserNodesRegistry}; publishing to
 * another node goes through the shared command connection. Redis pub/sub is at-most-once: a push
 * lost while a node reconnects is lost, which is acceptable for an optional sync (the device still
 * reads its progress on the next page open).
 *
 * <p>Thread-safe. Messages arrive on a Redis client thread, are decoded there and handed to
 * the registry, which hops onto each connection's executor.
 */
public final class RedisNodeChannels implements NodeChannels, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RedisNodeChannels.class);

  private final NodeChannels publisher;
  private final StatefulRedisPubSubConnection<byte[], byte[]> subscription;
  private final byte[] ownChannel;
  private final ConnectionRegistry connections;
  private final UserNodesRegistry userNodes;
  private final PushMetrics metrics;
  private final Listener listener = new Listener();
  private final AtomicBoolean closed = new AtomicBoolean();
  /** Completed by the listener's first confirmation of the own channel (which drops cached lookups). */
  private final CompletableFuture<Void> firstSubscribed = new CompletableFuture<>();

  private RedisNodeChannels(RedisConnections redis, PushKeys keys, String nodeId, ConnectionRegistry connections,
      UserNodesRegistry userNodes, PushMetrics metrics) {
    this.userNodes = userNodes;
    this.publisher = NodeChannels.redis(redis.shared(), keys);
    this.ownChannel = keys.channel(nodeId);
    this.connections = connections;
    this.metrics = metrics;
    this.subscription = redis.connectPubSub();
  }

  /**
   * Subscribes node {@code nodeId} to its channel and returns once Redis confirmed it (at most
   * {@code timeout} by {@code time}), so no push to this node is lost to a late subscription.
   * Blocks: call at start-up, not on an event loop.
   */
  public static RedisNodeChannels subscribe(RedisConnections redis, PushKeys keys, String nodeId,
      ConnectionRegistry connections, UserNodesRegistry userNodes, PushMetrics metrics, Duration timeout, Time time) {
    RedisNodeChannels channels = new RedisNodeChannels(redis, keys, nodeId, connections, userNodes, metrics);
    channels.subscription.addListener(channels.listener);
    try {
      long deadline = time.nanoTime() + timeout.toNanos();
      channels.subscription.async().subscribe(channels.ownChannel).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      // The command's answer and the listener's call come apart: wait for the listener too, so its
      // dropping of cached lookups cannot land after the node served its first users.
      channels.firstSubscribed.get(Math.max(0, deadline - time.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      channels.close();
      throw new IllegalStateException("interrupted while subscribing to the push channel", e);
    } catch (ExecutionException | TimeoutException e) {
      channels.close();
      throw new IllegalStateException("subscribing to the push channel failed: " + e, e);
    }
    log.info("Push: node {} listening on its Redis channel", nodeId);
    return channels;
  }

  @Override
  public CompletionStage<Void> publish(String nodeId, byte[] message) {
    return publisher.publish(nodeId, message);
  }

  private void received(byte[] message) {
    NodeMessage decoded;
    try {
      decoded = PushMessage.decodeAny(message);
    } catch (InvalidProtocolBufferException e) {
      metrics.receiveError();
      log.warn("Dropping a malformed push message of {} bytes: {}", message.length, e.getMessage());
      return;
    }
    if (decoded instanceof JoinNotice notice) {
      userNodes.joined(notice.uid(), notice.node());
      return;
    }
    PushMessage push = (PushMessage) decoded;
    metrics.receivedRemote();
    if (connections.deliver(push) == 0 && !connections.holds(push.uid())) {
      metrics.receivedStale();
      connections.forgetIfAbsent(push.uid());
    }
  }

  /**
   * Unsubscribes (bounded) and stops handling messages. The pub/sub connection itself belongs to
   * {@link RedisConnections} and is closed with it. Call off any event loop; idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    subscription.removeListener(listener);
    try {
      subscription.async().unsubscribe(ownChannel).get(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      log.debug("Unsubscribing from the push channel failed: {}", e.toString());
    }
  }

  private final class Listener extends RedisPubSubAdapter<byte[], byte[]> {
    /** Also called when the client re-subscribes after a reconnect. */
    @Override
    public void subscribed(byte[] channel, long count) {
      if (Arrays.equals(channel, ownChannel)) {
        userNodes.channelSubscribed();
        firstSubscribed.complete(null);
      }
    }

    @Override
    public void message(byte[] channel, byte[] message) {
      if (!Arrays.equals(channel, ownChannel)) {
        return;
      }
      try {
        received(message);
      } catch (RuntimeException e) {
        metrics.receiveError();
        log.warn("Handling a push message failed: {}", e.toString());
      }
    }
  }
}
