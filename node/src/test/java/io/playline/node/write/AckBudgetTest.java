package io.playline.node.write;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class AckBudgetTest {
  private static final long MS = 1_000_000;
  /** The batcher's clock: batches one after another, each read when the one before was answered. */
  private long now = 1_000 * MS;

  /** The next batch was answered {@code took} after its oldest heartbeat was read. */
  private void answer(AckBudget budget, long took) {
    long read = now;
    now += took;
    budget.answered(read, now);
  }

  @Test
  void aBatchStartsWaitingHalfOfFourFifthsOfTheBudget() {
    AckBudget budget = new AckBudget(Duration.ofMillis(25));
    assertThat(budget.enabled()).isTrue();
    assertThat(budget.waitNanos()).isEqualTo(10 * MS);
  }

  @Test
  void acksWithinTheTargetLetTheWaitGrowUpToTheTarget() {
    AckBudget budget = new AckBudget(Duration.ofMillis(25));
    answer(budget, 12 * MS);
    assertThat(budget.waitNanos()).isEqualTo(10 * MS + 20 * MS / 256);
    for (int i = 0; i < 1000; i++) {
      answer(budget, 12 * MS);
    }
    assertThat(budget.waitNanos()).isEqualTo(20 * MS);
  }

  @Test
  void anAckPastTheTargetCutsTheWaitByAQuarter() {
    AckBudget budget = new AckBudget(Duration.ofMillis(25));
    answer(budget, 21 * MS);
    assertThat(budget.waitNanos()).isEqualTo(10 * MS - 10 * MS / 4);
  }

  @Test
  void aHiccupCutsTheWaitOnceNotOnceForEveryBatchCaughtInIt() {
    AckBudget budget = new AckBudget(Duration.ofMillis(25));
    // A 40 ms stall: three batches read before it ended are answered late, one after another.
    budget.answered(now, now + 45 * MS);
    budget.answered(now + 5 * MS, now + 46 * MS);
    budget.answered(now + 10 * MS, now + 47 * MS);
    assertThat(budget.waitNanos()).isEqualTo(10 * MS - 10 * MS / 4);
    // A batch read after the cut that is late again is news: the wait is cut again.
    budget.answered(now + 46 * MS, now + 70 * MS);
    long once = 10 * MS - 10 * MS / 4;
    assertThat(budget.waitNanos()).isEqualTo(once - once / 4);
  }

  @Test
  void aRedisSlowerThanTheBudgetLeavesAlmostNoWaitWithinTwentyBatches() {
    AckBudget budget = new AckBudget(Duration.ofMillis(25));
    for (int i = 0; i < 20; i++) {
      answer(budget, 30 * MS);
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
      answer(budget, took);
    }
    assertThat(budget.waitNanos()).isBetween(5 * MS, 14 * MS);
    assertThat(over).isBetween(1, 500);
  }

  @Test
  void aZeroBudgetNeverWaits() {
    AckBudget budget = new AckBudget(Duration.ZERO);
    assertThat(budget.enabled()).isFalse();
    answer(budget, MS);
    assertThat(budget.waitNanos()).isZero();
  }
}
