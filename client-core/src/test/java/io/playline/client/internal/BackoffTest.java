package io.playline.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {
  @Test
  void ceilingDoublesFromBaseUpToTheCapWithoutOverflow() {
    Backoff b = new Backoff(100, 1_000, () -> 0.5);
    assertThat(b.ceilingMs(0)).isEqualTo(100);
    assertThat(b.ceilingMs(1)).isEqualTo(200);
    assertThat(b.ceilingMs(3)).isEqualTo(800);
    assertThat(b.ceilingMs(4)).isEqualTo(1_000);
    assertThat(b.ceilingMs(63)).isEqualTo(1_000);
    assertThat(b.ceilingMs(Integer.MAX_VALUE)).isEqualTo(1_000);
    assertThat(new Backoff(Long.MAX_VALUE / 2, Long.MAX_VALUE, () -> 0).ceilingMs(5)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void delaysAreFullJitterWithinZeroAndTheCeiling() {
    Random seeded = new Random(42);
    Backoff b = new Backoff(50, 5_000, seeded::nextDouble);
    for (int retry = 0; retry < 12; retry++) {
      long ceiling = Math.min(5_000, 50L << retry);
      long min = Long.MAX_VALUE;
      long max = 0;
      for (int i = 0; i < 2_000; i++) {
        long d = b.delayMs(retry);
        assertThat(d).isBetween(0L, ceiling);
        min = Math.min(min, d);
        max = Math.max(max, d);
      }
      // Full jitter spreads over the whole range, not just near the ceiling.
      assertThat(min).isLessThan(ceiling / 10 + 1);
      assertThat(max).isGreaterThan(ceiling * 9 / 10);
    }
    assertThat(new Backoff(50, 5_000, () -> 0.0).delayMs(3)).isZero();
    assertThat(new Backoff(50, 5_000, () -> 1.0).delayMs(3)).isEqualTo(400);
    assertThat(new Backoff(50, 5_000, () -> 0.5).jitterMs()).isEqualTo(25);
  }

  @Test
  void settingsAreChecked() {
    assertThatThrownBy(() -> new Backoff(0, 10, () -> 0)).hasMessageContaining("backoff base");
    assertThatThrownBy(() -> new Backoff(10, 5, () -> 0)).hasMessageContaining("backoff cap");
  }
}
