package io.playline.node.push;

import io.playline.node.write.AppliedListener;
import io.playline.proto.v1.HistoryRecord;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes a push to every connection of the user but its origin: this node's connections directly
 * (the player edge's; a node without players has none, {@code io.playline.node.PublishingPush}), and every other
 * node the {@link UserNodesRegistry} lists through that node's channel (one message per node,
 * encoded once); nodes that do not hold the user get nothing, and nothing is polled. Fed by the
 * write path ({@link AppliedListener}) and by backends ({@link PushService}).
 *
 * <p>Thread-safe and non-blocking: called on Redis client threads and by backends; the registry
 * lookup and the publishes are asynchronous.
 */
public final class PushRouter implements AppliedListener, PushService {
  private static final Logger log = LoggerFactory.getLogger(PushRouter.class);

  private final Consumer<PushMessage> local;
  private final UserNodesRegistry userNodes;
  private final NodeChannels channels;
  private final PushMetrics metrics;

  /** @param local hands a push to this node's connections (each skipping its origin) */
  public PushRouter(Consumer<PushMessage> local, UserNodesRegistry userNodes, NodeChannels channels, PushMetrics metrics) {
    this.local = local;
    this.userNodes = userNodes;
    this.channels = channels;
    this.metrics = metrics;
  }

  @Override
  public void onApplied(long uid, String originSessionId, String originDeviceId, List<HistoryRecord> applied) {
    route(new PushMessage(uid, originSessionId, originDeviceId, applied));
  }

  @Override
  public CompletionStage<Void> push(long uid, HistoryRecord record) {
    return route(PushMessage.fromBackend(uid, record));
  }

  /**
   * Delivers locally, then looks up the other nodes holding the user and publishes {@code message}
   * to each. The stage fails when the lookup or a publish failed (each counted and logged here).
   */
  CompletionStage<Void> route(PushMessage message) {
    local.accept(message);
    CompletableFuture<List<String>> lookup = userNodes.otherNodes(message.uid()).toCompletableFuture();
    if (lookup.isDone() && !lookup.isCompletedExceptionally() && lookup.join().isEmpty()) {
      // The usual case, answered from the registry's cache: a user on this node only. No stage to chain.
      metrics.routed();
      return CompletableFuture.completedFuture(null);
    }
    return lookup.handle((others, error) -> {
      if (error != null) {
        metrics.lookupError();
        log.warn("Looking up the nodes of user {} failed; push stays local: {}", message.uid(), error.toString());
        return CompletableFuture.<Void>failedFuture(error);
      }
      return publish(message, others);
    }).thenCompose(published -> published).whenComplete((ok, error) -> metrics.routed());
  }

  private CompletableFuture<Void> publish(PushMessage message, List<String> nodes) {
    if (nodes.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    byte[] wire = message.encode();
    CompletableFuture<?>[] sent = new CompletableFuture<?>[nodes.size()];
    for (int i = 0; i < nodes.size(); i++) {
      String node = nodes.get(i);
      sent[i] = channels.publish(node, wire).toCompletableFuture().whenComplete((ok, error) -> {
        if (error != null) {
          metrics.publishError();
          log.warn("Publishing a push for user {} to node {} failed: {}", message.uid(), node, error.toString());
        } else {
          metrics.routedRemote();
        }
      });
    }
    return CompletableFuture.allOf(sent);
  }
}
