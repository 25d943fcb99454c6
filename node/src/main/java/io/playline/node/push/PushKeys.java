package io.playline.node.push;

import java.nio.charset.StandardCharsets;

/**
 * Where push state lives in Redis, under the deployment's key prefix {@code <p>}: the session
 * registry of a user is the hash {@code <p>push:{uid}:nodes} (field node id, value the entry's
 * expiry time in epoch ms; hash-tagged by uid like the user's history keys), and node {@code N}
 * listens on the pub/sub channel {@code <p>push:N}. Immutable.
 */
public final class PushKeys {
  private final String prefix;

  public PushKeys(String prefix) {
    this.prefix = prefix;
  }

  /** The user-node registry hash of {@code uid}. */
  public byte[] nodes(long uid) {
    return bytes(prefix + "push:{" + uid + "}:nodes");
  }

  /** The pub/sub channel node {@code nodeId} listens on. */
  public byte[] channel(String nodeId) {
    return bytes(prefix + "push:" + nodeId);
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
