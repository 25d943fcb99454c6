package io.playline.node.edge;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.LongSummaryStatistics;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class DeadlinesTest {
  @Test
  void deadlinesSpreadOverTheLastQuarterOfTheSetting() {
    Duration max = Duration.ofSeconds(10);
    LongSummaryStatistics drawn = IntStream.range(0, 2_000).mapToLong(i -> Deadlines.spreadNanos(max))
        .summaryStatistics();
    assertThat(drawn.getMin()).isGreaterThanOrEqualTo(max.toNanos() * 3 / 4);
    assertThat(drawn.getMax()).isLessThanOrEqualTo(max.toNanos());
    // Two thousand uniform draws over 2.5 s cover most of it: not one tick for every connection.
    assertThat(drawn.getMax() - drawn.getMin()).isGreaterThan(Duration.ofSeconds(2).toNanos());
  }

  @Test
  void theSmallestDeadlinesStayWhole() {
    assertThat(Deadlines.spreadNanos(Duration.ofNanos(3))).isEqualTo(3);
    assertThat(Deadlines.spreadNanos(Duration.ZERO)).isZero();
  }
}
