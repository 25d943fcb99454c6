package io.playline.job.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.playline.core.store.RedisKeys;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ItemKey;
import java.nio.charset.StandardCharsets;
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
}
