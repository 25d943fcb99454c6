package io.playline.gateway.push;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * "Node N now holds a connection of user U": sent on the node channels ({@link PushKeys#channel})
 * of the other nodes holding U when N adds itself to U's session registry, so they drop their
 * cached lookup of U ({@code push.lookup.cache}) and reach N's connections from U's next change on.
 * Encoded like {@link PushMessage} ({@code 1: uid, 5: joined_node}) and told apart from it by field
 * 5 (a push carries records, field 4, and never field 5). Immutable.
 *
 * @param uid the user
 * @param node the node that joined
 */
record JoinNotice(long uid, String node) {
  private static final int UID = 1;
  private static final int JOINED_NODE = 5;

  JoinNotice {
    if (uid <= 0 || node.isEmpty()) {
      throw new IllegalArgumentException("uid: " + uid + ", node: '" + node + "' (expected: positive, non-empty)");
    }
  }

  byte[] encode() {
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

  /** The notice in {@code wire}, or empty when it is something else (a push, or malformed). */
  static Optional<JoinNotice> decode(byte[] wire) {
    CodedInputStream in = CodedInputStream.newInstance(wire);
    long uid = 0;
    String node = "";
    try {
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        int field = WireFormat.getTagFieldNumber(tag);
        int type = WireFormat.getTagWireType(tag);
        if (field == UID && type == WireFormat.WIRETYPE_VARINT) {
          uid = in.readInt64();
        } else if (field == JOINED_NODE && type == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
          node = in.readStringRequireUtf8();
        } else if (!in.skipField(tag)) {
          break;
        }
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return uid > 0 && !node.isEmpty() ? Optional.of(new JoinNotice(uid, node)) : Optional.empty();
  }
}
