package io.playline.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.playline.proto.v1.Business;
import io.playline.proto.v1.ItemKey;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class HistoryRowKeysTest {

  @Test
  void rowKeyIsTwoHexDigitsOfMd5OfTheDecimalUidThenTheUid() {
    // md5("12345") = 827ccb0eea8a706c4c34a16891f84e7b
    assertThat(text(HistoryRowKeys.row(12345))).isEqualTo("8212345");
    assertThat(HistoryRowKeys.uid(HistoryRowKeys.row(12345))).isEqualTo(12345);
    assertThat(HistoryRowKeys.uid(HistoryRowKeys.row(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void rowKeyWithWrongSaltIsRejected() {
    assertThatThrownBy(() -> HistoryRowKeys.uid("0012345".getBytes(StandardCharsets.US_ASCII)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void qualifierIsOidUnderscoreBusinessNumberAndParsesBack() {
    assertThat(text(HistoryRowKeys.qualifier(Business.VIDEO, 12345))).isEqualTo("12345_1");
    assertThat(text(HistoryRowKeys.qualifier(Business.EPISODE, 7))).isEqualTo("7_6");
    assertThat(HistoryRowKeys.item(HistoryRowKeys.qualifier(Business.LIVE, 99)))
        .isEqualTo(ItemKey.newBuilder().setBusiness(Business.LIVE).setOid(99).build());
    assertThatThrownBy(() -> HistoryRowKeys.item("12345".getBytes(StandardCharsets.US_ASCII)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void qualifierPatternMatchesOnlyTheNamedBusinesses() {
    String pattern = HistoryRowKeys.qualifierPattern(List.of(1, 4));
    assertThat("12345_1").matches(pattern);
    assertThat("7_4").matches(pattern);
    assertThat("12345_2").doesNotMatch(pattern);
    assertThat("12345_14").doesNotMatch(pattern);
    assertThat("1_41").doesNotMatch(pattern);
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.US_ASCII);
  }
}
