package io.playline.gateway.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.proto.v1.Error;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link UserBudgets} on a clock the test moves: bursts, refusals, and what closing and reconnecting buys. */
class UserBudgetsTest {
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
  private final AtomicLong now = new AtomicLong(1_000 * SECOND);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final UserBudgets budgets = new UserBudgets(100, 120, 60, registry, now::get);

  @Test
  void anHonestClientsResendOfItsWholeUnackedBufferPassesThenTheRateHolds() {
    budgets.join(7);
    for (int frame = 0; frame < 10; frame++) {
      assertThat(budgets.takeEvents(7, 100)).as("frame %d of a 1 000-event resend", frame).isNull();
    }
    Error refused = budgets.takeEvents(7, 100);
    assertThat(refused).isNotNull();
    assertThat(refused.getCode()).isEqualTo(Error.Code.RATE_LIMITED);
    assertThat(refused.getRetryAfterMs()).isEqualTo(1000);
    now.addAndGet(SECOND);
    assertThat(budgets.takeEvents(7, 100)).isNull();
    assertThat(registry.get("playline.user.budget.refusals").tag("budget", "events").counter().count()).isEqualTo(1);
  }

  @Test
  void closingAndReconnectingBuysNoFreshBudgetAndTheUserIsForgottenOnceItsBucketsAreFull() {
    budgets.join(7);
    assertThat(budgets.takeDeletes(7, 120)).isNull();
    assertThat(budgets.takeDeletes(7, 1)).as("the minute's deletes are spent").isNotNull();
    budgets.leave(7);
    now.addAndGet(SECOND / 10); // a tenth of a second regains a fifth of a delete
    budgets.join(7);
    assertThat(budgets.takeDeletes(7, 1)).as("back within the minute: still spent").isNotNull();
    budgets.leave(7);
    assertThat(budgets.users()).isEqualTo(1);

    now.addAndGet(UserBudgets.IDLE_RETENTION_NANOS);
    budgets.join(8); // forgetting happens as others come and go
    assertThat(budgets.users()).as("7 forgotten, 8 joined").isEqualTo(1);
    budgets.join(7);
    assertThat(budgets.takeDeletes(7, 120)).isNull();
    budgets.leave(7);
    budgets.leave(8);
    now.addAndGet(UserBudgets.IDLE_RETENTION_NANOS);
    budgets.join(9);
    budgets.leave(9);
    assertThat(budgets.users()).as("only 9, who just left").isEqualTo(1);
  }

  @Test
  void aUserWhoCameBackIsNotForgottenByItsEarlierLeave() {
    budgets.join(7);
    budgets.leave(7);
    budgets.join(7);
    now.addAndGet(2 * UserBudgets.IDLE_RETENTION_NANOS);
    budgets.join(8);
    budgets.join(8);
    assertThat(budgets.users()).isEqualTo(2);
    assertThat(budgets.takeEvents(7, 1000)).isNull();
    assertThat(budgets.takeEvents(7, 1)).as("7 still has its (spent) bucket").isNotNull();
  }
}
