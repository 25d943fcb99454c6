package io.playline.gateway.stream;

import com.google.protobuf.CodedOutputStream;
import io.netty.buffer.ByteBuf;
import io.playline.core.write.WriteOutcome;
import io.playline.proto.v1.HeartbeatAck;
import io.playline.proto.v1.ServerFrame;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * A heartbeat's ack, {@code ServerFrame{seq, heartbeat_ack{flag_date, first_today, first_view}}},
 * written straight to its wire bytes: the one frame every heartbeat gets is encoded without building
 * a {@code HeartbeatAck} and a {@code ServerFrame} and serializing them. {@link #write} produces
 * exactly the bytes protobuf's own serialization of {@link #frame} does (fields in number order,
 * proto3 defaults left out, {@code first_view} packed); {@code AckEncodingTest} holds the two equal
 * over random acks. Stateless.
 */
public final class AckEncoding {
  private static final int SEQ_TAG = ServerFrame.SEQ_FIELD_NUMBER << 3; // varint
  private static final int ACK_TAG = ServerFrame.HEARTBEAT_ACK_FIELD_NUMBER << 3 | 2; // length-delimited
  private static final int FLAG_DATE_TAG = HeartbeatAck.FLAG_DATE_FIELD_NUMBER << 3 | 2;
  private static final int FIRST_TODAY_TAG = HeartbeatAck.FIRST_TODAY_FIELD_NUMBER << 3; // varint
  private static final int FIRST_VIEW_TAG = HeartbeatAck.FIRST_VIEW_FIELD_NUMBER << 3 | 2; // packed

  private AckEncoding() {}

  /** The ack as a protobuf message: what a transport that needs a message (gRPC) sends. */
  public static ServerFrame frame(long seq, String flagDate, boolean firstToday, @Nullable WriteOutcome outcome) {
    HeartbeatAck.Builder ack = HeartbeatAck.newBuilder().setFlagDate(flagDate).setFirstToday(firstToday);
    if (outcome != null) {
      for (int i = 0; i < outcome.codes().length; i++) {
        ack.addFirstView(outcome.firstView(i));
      }
    }
    return ServerFrame.newBuilder().setSeq(seq).setHeartbeatAck(ack).build();
  }

  /** How many bytes {@link #write} writes for this ack. */
  public static int size(long seq, String flagDate, boolean firstToday, @Nullable WriteOutcome outcome) {
    int body = bodySize(flagDate, firstToday, outcome);
    return (seq == 0 ? 0 : 1 + CodedOutputStream.computeUInt64SizeNoTag(seq)) + 1
        + CodedOutputStream.computeUInt32SizeNoTag(body) + body;
  }

  /** Writes the ack's protobuf bytes ({@link #size} of them) at {@code out}'s writer index. */
  public static void write(ByteBuf out, long seq, String flagDate, boolean firstToday,
      @Nullable WriteOutcome outcome) {
    if (seq != 0) {
      out.writeByte(SEQ_TAG);
      writeVarint(out, seq);
    }
    out.writeByte(ACK_TAG);
    writeVarint(out, bodySize(flagDate, firstToday, outcome));
    if (!flagDate.isEmpty()) {
      out.writeByte(FLAG_DATE_TAG);
      if (isAscii(flagDate)) { // always, for a date: one byte a char, written without a copy
        writeVarint(out, flagDate.length());
        out.writeCharSequence(flagDate, StandardCharsets.US_ASCII);
      } else {
        byte[] utf8 = flagDate.getBytes(StandardCharsets.UTF_8);
        writeVarint(out, utf8.length);
        out.writeBytes(utf8);
      }
    }
    if (firstToday) {
      out.writeByte(FIRST_TODAY_TAG);
      out.writeByte(1);
    }
    int views = outcome == null ? 0 : outcome.codes().length;
    if (views > 0) {
      out.writeByte(FIRST_VIEW_TAG);
      writeVarint(out, views);
      for (int i = 0; i < views; i++) {
        out.writeByte(outcome.firstView(i) ? 1 : 0);
      }
    }
  }

  private static int bodySize(String flagDate, boolean firstToday, @Nullable WriteOutcome outcome) {
    int size = 0;
    if (!flagDate.isEmpty()) {
      size += 1 + CodedOutputStream.computeStringSizeNoTag(flagDate); // protobuf's own count: length and bytes
    }
    if (firstToday) {
      size += 2;
    }
    int views = outcome == null ? 0 : outcome.codes().length;
    if (views > 0) {
      size += 1 + CodedOutputStream.computeUInt32SizeNoTag(views) + views; // one byte per packed bool
    }
    return size;
  }

  /**
   * Whether every char of {@code s} is ASCII. Any other string is written as {@code
   * String.getBytes(UTF_8)} writes it, which is what protobuf writes too (an unpaired surrogate
   * becomes {@code ?} in both).
   */
  private static boolean isAscii(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) >= 0x80) {
        return false;
      }
    }
    return true;
  }

  private static void writeVarint(ByteBuf out, long value) {
    long v = value;
    while ((v & ~0x7FL) != 0) {
      out.writeByte((int) (v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out.writeByte((int) v);
  }
}
