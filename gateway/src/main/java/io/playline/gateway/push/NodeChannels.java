package io.playline.gateway.push;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Delivers pushes to other gateway nodes, one channel per node. Thread-safe and asynchronous.
 */
public interface NodeChannels {
  /** No other nodes: publishing fails. */
  NodeChannels NONE = (nodeId, message) ->
      CompletableFuture.failedFuture(new IllegalStateException("no channel to node " + nodeId));

  /** Publishes {@code message} (a {@link PushMessage#encode()}d push) to node {@code nodeId}. */
  CompletionStage<Void> publish(String nodeId, byte[] message);
}
