package io.playline.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RedisKeysTest {
  private final RedisKeys keys = new RedisKeys("pl:");

  @Test
  void userKeysShareTheUidHashTag() {
    for (long uid : new long[] {0, 7, 10, 42, 999_999, -1, -10, -123, Long.MAX_VALUE, Long.MIN_VALUE}) {
      assertThat(text(keys.timeline(uid))).isEqualTo("pl:h:{" + uid + "}:z");
      assertThat(text(keys.records(uid))).isEqualTo("pl:h:{" + uid + "}:r");
      assertThat(text(keys.tombstones(uid))).isEqualTo("pl:h:{" + uid + "}:t");
      assertThat(text(keys.paused(uid))).isEqualTo("pl:h:{" + uid + "}:p");
    }
  }

  private static String text(byte[] key) {
    return new String(key, StandardCharsets.UTF_8);
  }
}
