package io.playline.bench.reads;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class StoredHistoryTest {
  @Test
  void aDeepCursorIsPastWhatRedisHoldsAndLeavesAWholePage() {
    SplittableRandom random = new SplittableRandom(7);
    TreeSet<Integer> seen = new TreeSet<>();
    for (int i = 0; i < 20_000; i++) {
      seen.add(StoredHistory.deepCursor(1000, 1100, 20, random));
    }
    // The cursor is the 1001st newest record at the shallowest (the first Redis does not hold) and
    // the 1080th at the deepest (records 1081..1100 make the page).
    assertThat(seen.first()).isEqualTo(1001);
    assertThat(seen.last()).isEqualTo(1080);
    assertThat(seen).hasSize(80);
  }

  @Test
  void withRoomForExactlyOnePageTheCursorIsFixed() {
    assertThat(StoredHistory.deepCursor(1000, 1021, 20, new SplittableRandom(1))).isEqualTo(1001);
  }
}
