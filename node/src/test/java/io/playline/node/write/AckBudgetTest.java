package io.playline.node.write;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class AckBudgetTest {
  private static final long MS = 1_000_000;

  @Test
  void aBatchStartsWaitingHalfOfFourFifthsOfTheBudget() {
    AckBudget budget = new AckBudget(Duration.ofMillis(25));
    assertThat(budget.enabled()).isTrue();
    assertThat(budget.waitNanos()).isEqualTo(10 * MS);
  }

  @Test
  void acksWithinTheTargetLetTheWaitGrowUpToTheTarget() {
    AckBudget budget = new AckBudget(Duration.ofMillis(25));
    budget.answered(12 * MS);
    assertThat(budget.waitNanos()).isEqualTo(10 * MS + 20 * MS / 256);
    for (int i = 0; i < 1000; i++) {
      budget.answered(12 * MS);
    }
    assertThat(budget.waitNanos()).isEqualTo(20 * MS);
  }

  @Test
  void anAckPastTheTargetCutsTheWaitByAQuarter() {
    AckBudget budget = new AckBudget(Duration.ofMillis(25));
    budget.answered(21 * MS);
    assertThat(budget.waitNanos()).isEqualTo(10 * MS - 10 * MS / 4);
  }

  @Test
  void aRedisSlowerThanTheBudgetLeavesAlmostNoWaitWithinTwentyBatches() {
    AckBudget budget = new AckBudget(Duration.ofMillis(25));
    for (int i = 0; i < 20; i++) {
      budget.answered(30 * MS);
    }
    assertThat(budget.waitNanos()).isLessThan(MS / 20);
  }

  @Test
  void theWaitSettlesWhereAFewBatchesInAHundredReachTheTarget() {
    // A machine where the ack takes the wait plus 6 ms, and every 10th batch 6 ms more.
    AckBudget budget = new AckBudget(Duration.ofMillis(25));
    int over = 0;
    for (int i = 0; i < 10_000; i++) {
      long took = budget.waitNanos() + 6 * MS + (i % 10 == 0 ? 6 * MS : 0);
      if (i >= 5_000 && took > 20 * MS) {
        over++;
      }
      budget.answered(took);
    }
    assertThat(budget.waitNanos()).isBetween(5 * MS, 14 * MS);
    assertThat(over).isBetween(1, 500);
  }

  @Test
  void aZeroBudgetNeverWaits() {
    AckBudget budget = new AckBudget(Duration.ZERO);
    assertThat(budget.enabled()).isFalse();
    budget.answered(MS);
    assertThat(budget.waitNanos()).isZero();
  }
}
