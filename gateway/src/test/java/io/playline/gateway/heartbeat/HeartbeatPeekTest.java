package io.playline.gateway.heartbeat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.InvalidProtocolBufferException;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.PlayEvent;
import io.playline.testing.Frames;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class HeartbeatPeekTest {
  private static final PlayEvent EVENT = Frames.event(7, 1_000, 0);

  private static long peek(byte[] bytes) {
    return HeartbeatPeek.seqOfHeartbeatWithEvents(ByteBuffer.wrap(bytes));
  }

  private static long peek(ClientFrame frame) {
    return peek(frame.toByteArray());
  }

  @Test
  void heartbeatWithEventsGivesItsSeqWhateverTheFieldOrder() throws Exception {
    assertThat(peek(Frames.heartbeat(42, "2026-11-27", EVENT))).isEqualTo(42);
    ByteArrayOutputStream heartbeatFirst = new ByteArrayOutputStream();
    Frames.heartbeat(0, EVENT).writeTo(heartbeatFirst);
    ClientFrame.newBuilder().setSeq(9).build().writeTo(heartbeatFirst);
    assertThat(peek(heartbeatFirst.toByteArray())).isEqualTo(9);
  }

  @Test
  void eventsThatWouldNotDecodeAreNotDecoded() {
    // field 1 (events), 3 bytes that are no PlayEvent (a truncated varint)
    byte[] heartbeat = {0x0a, 0x03, 0x08, (byte) 0xff, (byte) 0xff};
    byte[] frame = new byte[2 + 2 + heartbeat.length];
    frame[0] = 0x08;
    frame[1] = 5;
    frame[2] = 0x1a;
    frame[3] = (byte) heartbeat.length;
    System.arraycopy(heartbeat, 0, frame, 4, heartbeat.length);
    assertThat(peek(frame)).isEqualTo(5);
    assertThatThrownBy(() -> ClientFrame.parseFrom(frame)).isInstanceOf(InvalidProtocolBufferException.class);
  }

  @Test
  void anythingElseIsLeftToTheFullDecode() {
    assertThat(peek(Frames.heartbeat(3, "d"))).as("a keep-alive").isEqualTo(-1);
    ClientFrame delete = Frames.delete(4, Frames.video(1));
    assertThat(peek(delete)).isEqualTo(-1);
    byte[] heartbeatThenDelete = concat(Frames.heartbeat(4, EVENT).toByteArray(), delete.toByteArray());
    assertThat(peek(heartbeatThenDelete)).as("the last body set wins").isEqualTo(-1);
    assertThat(peek(new byte[] {0x1a, 0x7f, 0x0a})).as("truncated").isEqualTo(-1);
    assertThat(peek(new byte[0])).isEqualTo(-1);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
