package io.playline.gateway.heartbeat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.InvalidProtocolBufferException;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.DeleteItems;
import io.playline.proto.v1.Heartbeat;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.PlayEvent;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class HeartbeatPeekTest {
  private static final PlayEvent EVENT = PlayEvent.newBuilder().setBusiness(Business.VIDEO).setOid(7).build();

  private static long peek(byte[] bytes) {
    return HeartbeatPeek.seqOfHeartbeatWithEvents(ByteBuffer.wrap(bytes));
  }

  private static long peek(ClientFrame frame) {
    return peek(frame.toByteArray());
  }

  @Test
  void heartbeatWithEventsGivesItsSeqWhateverTheFieldOrder() throws Exception {
    assertThat(peek(ClientFrame.newBuilder().setSeq(42).setHeartbeat(Heartbeat.newBuilder().setFlagDate("2026-11-27")
        .addEvents(EVENT)).build())).isEqualTo(42);
    ByteArrayOutputStream heartbeatFirst = new ByteArrayOutputStream();
    ClientFrame.newBuilder().setHeartbeat(Heartbeat.newBuilder().addEvents(EVENT)).build().writeTo(heartbeatFirst);
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
    assertThat(peek(ClientFrame.newBuilder().setSeq(3).setHeartbeat(Heartbeat.newBuilder().setFlagDate("d")).build()))
        .as("a keep-alive").isEqualTo(-1);
    ClientFrame delete = ClientFrame.newBuilder().setSeq(4).setDelete(DeleteItems.newBuilder()
        .addItems(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(1))).build();
    assertThat(peek(delete)).isEqualTo(-1);
    byte[] heartbeatThenDelete = concat(ClientFrame.newBuilder().setSeq(4)
        .setHeartbeat(Heartbeat.newBuilder().addEvents(EVENT)).build().toByteArray(), delete.toByteArray());
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
