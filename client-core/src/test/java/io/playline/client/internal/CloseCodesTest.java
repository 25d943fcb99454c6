package io.playline.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.proto.lite.v1.Error.Code;
import org.junit.jupiter.api.Test;

class CloseCodesTest {
  @Test
  void closeCodesInThe4000RangeCarryTheErrorCode() {
    assertThat(CloseCodes.closeCause(4012, "session expired").code()).isEqualTo(Code.SESSION_EXPIRED);
    assertThat(CloseCodes.closeCause(4013, "draining").code()).isEqualTo(Code.DRAINING);
    assertThat(CloseCodes.closeCause(4999, "?").code()).isEqualTo(Code.INTERNAL);
    assertThat(CloseCodes.closeCause(1001, "going away").code()).isEqualTo(Code.UNAVAILABLE);
  }
}
