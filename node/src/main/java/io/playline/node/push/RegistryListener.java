package io.playline.node.push;

/**
 * Told what this node learns from the {@link UserNodesRegistry} about which other nodes hold a user,
 * as it learns it: e.g. so that the user's budgets are shared across those nodes. Only the user's
 * own nodes write its registry entry and announce joining it, so nothing another user does shows
 * here.
 *
 * <p>Called on Redis client threads; implementations must be thread-safe and must not block.
 */
public interface RegistryListener {
  /** Listens to nothing. */
  RegistryListener NONE = new RegistryListener() {
    @Override
    public void otherNodesRead(long uid, int otherNodes) {
    }

    @Override
    public void otherNodeJoined(long uid) {
    }
  };

  /** A read of {@code uid}'s registry found {@code otherNodes} live nodes other than this one holding it. */
  void otherNodesRead(long uid, int otherNodes);

  /** Another node announced that it now holds a connection of {@code uid} ({@link JoinNotice}). */
  void otherNodeJoined(long uid);
}
