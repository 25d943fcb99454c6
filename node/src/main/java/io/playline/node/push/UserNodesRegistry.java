package io.playline.node.push;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Which nodes hold a connection of a user, shared by every node (a user's entry says
 * "node N holds it until time T"). This node adds itself when its first connection of the user
 * opens, refreshes lazily while the user is active, and removes itself when its last one closes;
 * entries of a node that died expire.
 *
 * <p>Thread-safe; every call is asynchronous and never blocks. Calls for one user must be issued
 * in the order they should take effect (the player edge's connection registry serializes them per user).
 */
public interface UserNodesRegistry {
  /** A registry for a single node: nobody else holds anyone. */
  UserNodesRegistry LOCAL = new UserNodesRegistry() {
    @Override
    public void add(long uid) {
    }

    @Override
    public CompletionStage<Void> remove(long uid) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<List<String>> otherNodes(long uid) {
      return CompletableFuture.completedFuture(List.of());
    }
  };

  /** Records (or refreshes) that this node holds a connection of {@code uid}. */
  void add(long uid);

  /** Records that this node holds no connection of {@code uid} any more. */
  CompletionStage<Void> remove(long uid);

  /** The live nodes other than this one that hold a connection of {@code uid}. */
  CompletionStage<List<String>> otherNodes(long uid);

  /** Node {@code node} announced that it now holds a connection of {@code uid}. */
  default void joined(long uid, String node) {
  }

  /** This node's push channel was subscribed again (e.g. after a reconnect): notices may have been missed. */
  default void channelSubscribed() {
  }
}
