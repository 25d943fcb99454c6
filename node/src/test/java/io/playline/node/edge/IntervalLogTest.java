package io.playline.node.edge;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link IntervalLog} on a clock the test moves: the first event at once, then one line per interval with its count. */
class IntervalLogTest {
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  @Test
  void reportsTheFirstEventAtOnceThenOneLinePerIntervalCountingWhatItHeldBack() {
    AtomicLong now = new AtomicLong(5 * SECOND);
    IntervalLog lines = new IntervalLog(10, now::get);
    assertThat(lines.count()).isEqualTo(1);
    for (int i = 0; i < 999; i++) {
      assertThat(lines.count()).isZero();
    }
    now.addAndGet(9 * SECOND);
    assertThat(lines.count()).as("still within the interval").isZero();
    now.addAndGet(SECOND);
    assertThat(lines.count()).as("the 1 000 held back and this one").isEqualTo(1_001);
    now.addAndGet(60 * SECOND);
    assertThat(lines.count()).as("after a quiet minute, at once").isEqualTo(1);
    assertThat(lines.intervalSeconds()).isEqualTo(10);
  }
}
