package io.playline.job.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.playline.core.store.RedisKeys;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ItemKey;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecoveryMarksParseTest {
  @Test
  void parsesWriteThroughAndControlMarksAndRefusesMalformedOnes() {
    RecoveryMarks.Mark item = RecoveryMarks.parse(RedisKeys.recoveryMember(7, RedisKeys.member(Business.COMIC, 9)));
    assertThat(item.uid()).isEqualTo(7);
    assertThat(item.item()).isEqualTo(ItemKey.newBuilder().setBusiness(Business.COMIC).setOid(9).build());
    assertThat(item.control()).isFalse();

    RecoveryMarks.Mark control = RecoveryMarks.parse(RedisKeys.controlMark(7, -5));
    assertThat(control.uid()).isEqualTo(7);
    assertThat(control.control()).isTrue();

    for (String bad : new String[] {"garbage", "7:~", "0:~ab", "x:~ab", "7:99:1", "7:1:0", ":1:1"}) {
      assertThatThrownBy(() -> RecoveryMarks.parse(bad.getBytes(StandardCharsets.US_ASCII)))
          .as(bad).isInstanceOf(IllegalArgumentException.class);
    }
  }

  /** A recovery-log entry as XRANGE answers it: {id, {field, value}}. */
  @Test
  void readsTheItemsOfALogEntryAndNamesAMalformedOne() {
    RecoveryMarks.LogEntry entry = RecoveryMarks.logEntry(List.of(bytes("1700000000000-3"),
        List.of(bytes("m"), bytes("7:3:9 8:1:10"))));
    assertThat(entry.id()).isEqualTo("1700000000000-3");
    assertThat(entry.malformed()).isNull();
    assertThat(entry.members()).extracting(m -> new String(m, StandardCharsets.US_ASCII))
        .containsExactly("7:3:9", "8:1:10");

    RecoveryMarks.LogEntry extra = RecoveryMarks.logEntry(List.of(bytes("4-0"),
        List.of(bytes("x"), bytes("1"), bytes("m"), bytes("7:3:9"))));
    assertThat(extra.members()).hasSize(1);
    RecoveryMarks.LogEntry other = RecoveryMarks.logEntry(List.of(bytes("5-0"), List.of(bytes("x"), bytes("7:3:9"))));
    assertThat(other.id()).isEqualTo("5-0");
    assertThat(other.members()).isEmpty();
    assertThat(other.malformed()).isNotNull();
    assertThatThrownBy(() -> RecoveryMarks.logEntry(bytes("5-0"))).isInstanceOf(IllegalStateException.class);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
