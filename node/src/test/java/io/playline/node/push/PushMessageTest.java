package io.playline.node.push;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.InvalidProtocolBufferException;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

class PushMessageTest {
  private static final HistoryRecord R1 = HistoryRecord.newBuilder().setUid(9).setBusiness(Business.VIDEO).setOid(1)
      .setProgressMs(10).setDeviceId("phone").build();
  private static final HistoryRecord R2 = R1.toBuilder().setOid(2).build();

  @Test
  void roundTripsThroughTheChannelEncoding() throws Exception {
    PushMessage m = new PushMessage(9, "session-1", "phone", List.of(R1, R2));
    assertThat(PushMessage.decode(m.encode())).isEqualTo(m);
    PushMessage backend = new PushMessage(9, "", "", List.of(R1));
    assertThat(PushMessage.decode(backend.encode())).isEqualTo(backend);
  }

  @Test
  void originIsTheSameSessionOrTheSameNonEmptyDevice() {
    PushMessage m = new PushMessage(9, "s1", "phone", List.of(R1));
    assertThat(m.isOrigin("s1", "other")).isTrue();
    assertThat(m.isOrigin("s2", "phone")).isTrue();
    assertThat(m.isOrigin("s2", "tv")).isFalse();
    PushMessage anonymous = new PushMessage(9, "s1", "", List.of(R1));
    assertThat(anonymous.isOrigin("s2", "")).isFalse();
    PushMessage backend = new PushMessage(9, "", "", List.of(R1));
    assertThat(backend.isOrigin("", "")).isFalse();
  }

  @Test
  void rejectsGarbageAndEmptyMessages() {
    assertThatThrownBy(() -> PushMessage.decode(new byte[] {(byte) 0xff, (byte) 0xff}))
        .isInstanceOf(InvalidProtocolBufferException.class);
    assertThatThrownBy(() -> PushMessage.decode(new byte[0])).isInstanceOf(InvalidProtocolBufferException.class);
    assertThatThrownBy(() -> new PushMessage(9, "", "", List.of())).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void joinNoticesAreToldApartFromPushes() throws Exception {
    byte[] wire = new JoinNotice(7, "node-b").encode();
    assertThat(PushMessage.decodeAny(wire)).isEqualTo(new JoinNotice(7, "node-b"));
    // Older nodes read it as a push without records and drop it as malformed.
    assertThatThrownBy(() -> PushMessage.decode(wire)).isInstanceOf(InvalidProtocolBufferException.class);
    PushMessage push = new PushMessage(7, "s1", "d1", List.of(HistoryRecord.newBuilder().setUid(7)
        .setBusiness(Business.VIDEO).setOid(1).setViewTimeMs(1).build()));
    assertThat(PushMessage.decodeAny(push.encode())).isEqualTo(push);
    assertThatThrownBy(() -> PushMessage.decodeAny(new byte[] {0x08, 0x07}))
        .isInstanceOf(InvalidProtocolBufferException.class);
  }
}
