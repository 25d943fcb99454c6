package io.playline.node.push;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Delivers pushes to the nodes holding players, one channel per node. Thread-safe and asynchronous.
 */
public interface NodeChannels {
  /** No other nodes: publishing fails. */
  NodeChannels NONE = (nodeId, message) ->
      CompletableFuture.failedFuture(new IllegalStateException("no channel to node " + nodeId));

  /** Publishing through Redis pub/sub on {@code redis} to each node's channel ({@link PushKeys#channel}). */
  static NodeChannels redis(RedisClusterAsyncCommands<byte[], byte[]> redis, PushKeys keys) {
    return (nodeId, message) -> redis.publish(keys.channel(nodeId), message).thenApply(receivers -> null);
  }

  /** Publishes {@code message} (a {@link PushMessage#encode()}d push) to node {@code nodeId}. */
  CompletionStage<Void> publish(String nodeId, byte[] message);
}
