package io.playline.gateway.heartbeat;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.Heartbeat;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Reads just enough of an encoded {@code ClientFrame} to tell a heartbeat carrying events, and its
 * seq, without decoding the events: what a connection told to wait (retry_after_ms) sends is
 * refused without building an object per event. Anything it is not sure of is left to the full
 * decode. The decode step of both player transports (WebSocket messages, gRPC stream messages)
 * asks it while the connection's {@link EventWait} runs. Stateless.
 */
public final class HeartbeatPeek {
  private static final int SEQ_TAG = tag(ClientFrame.SEQ_FIELD_NUMBER, WireFormat.WIRETYPE_VARINT);
  private static final int HEARTBEAT_TAG = tag(ClientFrame.HEARTBEAT_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);
  private static final int EVENTS_TAG = tag(Heartbeat.EVENTS_FIELD_NUMBER, WireFormat.WIRETYPE_LENGTH_DELIMITED);

  private HeartbeatPeek() {}

  private static int tag(int fieldNumber, int wireType) {
    return fieldNumber << 3 | wireType;
  }

  /** The frame's seq when it is a heartbeat with at least one event, else -1 (decode it in full). */
  public static long seqOfHeartbeatWithEvents(ByteBuffer frame) {
    CodedInputStream in = CodedInputStream.newInstance(frame);
    long seq = 0;
    boolean withEvents = false;
    try {
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        if (tag == SEQ_TAG) {
          seq = in.readUInt64();
        } else if (tag == HEARTBEAT_TAG) {
          int outer = in.pushLimit(in.readRawVarint32());
          withEvents |= hasEvents(in);
          in.skipRawBytes(in.getBytesUntilLimit());
          in.popLimit(outer);
        } else if (ClientFrame.getDescriptor().findFieldByNumber(WireFormat.getTagFieldNumber(tag)) != null) {
          return -1; // another body (the last one set wins), or a known field in an unexpected shape
        } else {
          in.skipField(tag);
        }
      }
    } catch (IOException malformed) {
      return -1;
    }
    return withEvents && seq >= 0 ? seq : -1;
  }

  /** Whether the heartbeat under the current limit has an events field; leaves the rest unread. */
  private static boolean hasEvents(CodedInputStream in) throws IOException {
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      if (tag == EVENTS_TAG) {
        return true;
      }
      in.skipField(tag);
    }
    return false;
  }
}
