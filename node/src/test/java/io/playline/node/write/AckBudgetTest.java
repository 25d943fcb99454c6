package io.playline.node.write;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class AckBudgetTest {
  private static final long MS = 1_000_000;

  @Test
  void beforeAnyRoundTripABatchMayWaitFourFifthsOfTheBudget() {
    AckBudget budget = new AckBudget(Duration.ofMillis(25));
    assertThat(budget.enabled()).isTrue();
    assertThat(budget.waitNanos()).isEqualTo(20 * MS);
  }

  @Test
  void aSteadyRoundTripIsLeftOutOfTheWait() {
    AckBudget budget = new AckBudget(Duration.ofMillis(25));
    for (int i = 0; i < 200; i++) {
      budget.roundTrip(2 * MS);
    }
    // The deviation decays towards zero for a steady round trip: the wait approaches 20 - 2 ms.
    assertThat(budget.expectedRoundTripNanos()).isBetween(2 * MS, 2 * MS + MS / 10);
    assertThat(budget.waitNanos()).isBetween(18 * MS - MS / 10, 18 * MS);
  }

  @Test
  void aRoundTripThatJumpsShortensTheWaitAtOnce() {
    AckBudget budget = new AckBudget(Duration.ofMillis(25));
    for (int i = 0; i < 200; i++) {
      budget.roundTrip(MS);
    }
    long steady = budget.waitNanos();
    budget.roundTrip(9 * MS);
    // One slow answer moves the smoothed round trip by 1/8 of the jump and the deviation by 1/4: 1 + 4 * 2 ms.
    assertThat(budget.expectedRoundTripNanos()).isGreaterThanOrEqualTo(10 * MS);
    assertThat(budget.waitNanos()).isLessThanOrEqualTo(steady - 8 * MS);
  }

  @Test
  void aRedisSlowerThanTheBudgetLeavesNoWait() {
    AckBudget budget = new AckBudget(Duration.ofMillis(25));
    budget.roundTrip(30 * MS);
    assertThat(budget.waitNanos()).isZero();
  }

  @Test
  void aZeroBudgetNeverWaits() {
    AckBudget budget = new AckBudget(Duration.ZERO);
    assertThat(budget.enabled()).isFalse();
    assertThat(budget.waitNanos()).isZero();
  }
}
