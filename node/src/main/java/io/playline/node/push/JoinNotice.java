package io.playline.node.push;

import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * "Node N now holds a connection of user U": sent on the node channels ({@link PushKeys#channel})
 * of the other nodes holding U when N adds itself to U's entry in the user-nodes registry, so they
 * drop their cached lookup of U ({@code push.lookup.cache}) and reach N's connections from U's next
 * change on.
 * Encoded like {@link PushMessage} ({@code 1: uid, 5: joined_node}) and parsed with it ({@link
 * PushMessage#decodeAny}), told apart by field 5, which a push never carries. Immutable.
 *
 * @param uid the user
 * @param node the node that joined
 */
public record JoinNotice(long uid, String node) implements NodeMessage {
  private static final int UID = 1;
  static final int JOINED_NODE = 5;

  public JoinNotice {
    if (uid <= 0 || node.isEmpty()) {
      throw new IllegalArgumentException("uid: " + uid + ", node: '" + node + "' (expected: positive, non-empty)");
    }
  }

  public byte[] encode() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 + node.length());
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    try {
      out.writeInt64(UID, uid);
      out.writeString(JOINED_NODE, node);
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory failed", e);
    }
    return bytes.toByteArray();
  }
}
