package io.playline.gateway.budget;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.proto.v1.Error;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@link UserBudgets} on a clock the test moves: bursts, refusals, what closing and reconnecting buys,
 * and budgets shared with the other nodes holding the user.
 */
class UserBudgetsTest {
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
  private final AtomicLong now = new AtomicLong(1_000 * SECOND);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  /** What a lookup of a user's other nodes answers, and how many were made. */
  private final AtomicInteger otherNodes = new AtomicInteger();
  private final AtomicInteger lookups = new AtomicInteger();
  private final UserBudgets budgets = new UserBudgets(100, 120, 60, 60, registry, now::get, uid -> {
    lookups.incrementAndGet();
    return CompletableFuture.completedFuture(otherNodes.get());
  });

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
  void authenticationsPassInBurstsOfTheirOwnSizeThenAtThePerMinuteRate() {
    UserBudgets small = new UserBudgets(100, 120, 60, 8, registry, now::get, uid -> CompletableFuture.completedFuture(0));
    for (int i = 0; i < 8; i++) {
      assertThat(small.takeAuth(7)).as("device %d of a family reconnecting together", i).isNull();
    }
    Error refused = small.takeAuth(7);
    assertThat(refused).as("the ninth at once").isNotNull();
    assertThat(refused.getRetryAfterMs()).as("60 a minute: one a second").isEqualTo(1000);
    now.addAndGet(SECOND);
    assertThat(small.takeAuth(7)).isNull();
    assertThat(small.takeAuth(7)).isNotNull();
    now.addAndGet(60 * SECOND);
    for (int i = 0; i < 8; i++) {
      assertThat(small.takeAuth(7)).as("a minute later, a full burst again, never more: %d", i).isNull();
    }
    assertThat(small.takeAuth(7)).isNotNull();
  }

  @Test
  void aBurstAboveThePerMinuteBudgetGrantsNoMoreThanThePerMinuteBudget() {
    UserBudgets strict = new UserBudgets(100, 120, 3, 8, registry, now::get, uid -> CompletableFuture.completedFuture(0));
    for (int i = 0; i < 3; i++) {
      assertThat(strict.takeAuth(7)).isNull();
    }
    Error refused = strict.takeAuth(7);
    assertThat(refused).as("3 a minute, whatever the burst").isNotNull();
    assertThat(refused.getMessage()).contains("more than 3 authentications at once or 3 per minute");
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

  @Test
  void aUserHeldByAnotherNodeIsChargedTwiceSoTheTwoNodesGrantOneBurstAndOneRate() {
    budgets.join(7);
    budgets.join(8);
    otherNodes.set(1);
    budgets.otherNodesRead(7, 1);
    for (int frame = 0; frame < 5; frame++) {
      assertThat(budgets.takeEvents(7, 100)).as("frame %d", frame).isNull();
    }
    Error refused = budgets.takeEvents(7, 100);
    assertThat(refused).isNotNull();
    assertThat(refused.getRetryAfterMs()).as("100 events at 2 tokens, 100 tokens a second").isEqualTo(2000);
    assertThat(refused.getMessage()).contains("across the 2 nodes");
    now.addAndGet(SECOND);
    assertThat(budgets.takeEvents(7, 50)).isNull();
    assertThat(budgets.takeEvents(7, 1)).isNotNull();
    assertThat(budgets.takeEvents(8, 1000)).as("another user's budget is its own").isNull();

    assertThat(budgets.takeDeletes(7, 60)).isNull();
    assertThat(budgets.takeDeletes(7, 1)).as("120 deletes a minute, at 2 tokens each").isNotNull();
    for (int i = 0; i < 30; i++) {
      assertThat(budgets.takeAuth(7)).isNull();
    }
    assertThat(budgets.takeAuth(7)).as("60 authentications a minute, at 2 tokens each").isNotNull();
    assertThat(registry.get("playline.user.budget.shared.takes").tag("budget", "events").counter().count())
        .isEqualTo(8);
    assertThat(registry.get("playline.user.budget.shared.takes").tag("budget", "auths").counter().count())
        .isEqualTo(31);
  }

  @Test
  void honestDevicesOnThreeNodesAreNeverRefusedNorLookedUpAndAFastSpenderIsLookedUpAtMostOncePerSecond() {
    budgets.join(7);
    budgets.otherNodesRead(7, 2);
    for (int heartbeat = 0; heartbeat < 100; heartbeat++) {
      assertThat(budgets.takeEvents(7, 10)).as("heartbeat %d", heartbeat).isNull();
      now.addAndGet(15 * SECOND);
    }
    assertThat(lookups).hasValue(0);

    budgets.otherNodeJoined(7);
    otherNodes.set(4);
    assertThat(budgets.takeEvents(7, 150)).as("600 tokens at 4 a piece, 400 left").isNull();
    assertThat(lookups).as("under half a bucket: looked up").hasValue(1);
    assertThat(budgets.takeEvents(7, 81)).as("405 tokens at 5 a piece").isNotNull();
    assertThat(budgets.takeEvents(7, 80)).isNull();
    assertThat(lookups).as("not again within the second").hasValue(1);
    now.addAndGet(SECOND);
    budgets.takeEvents(7, 1);
    assertThat(lookups).hasValue(2);

    budgets.otherNodesRead(99, 3);
    budgets.otherNodeJoined(99);
    assertThat(budgets.users()).as("nothing kept for a user without a connection here").isEqualTo(1);
  }

  @Test
  void aHeartbeatPricedAboveTheBucketPassesWhenItIsFullAndIsPaidForBeforeTheUserIsForgotten() {
    budgets.join(7);
    otherNodes.set(99);
    budgets.otherNodesRead(7, 99);
    assertThat(budgets.takeEvents(7, 100)).as("10 000 tokens: more than the bucket, which is full").isNull();
    now.addAndGet(SECOND);
    Error refused = budgets.takeEvents(7, 1);
    assertThat(refused).isNotNull();
    assertThat(refused.getRetryAfterMs()).as("owing 8 900 tokens, then 100 for the event").isEqualTo(90_000);

    budgets.leave(7);
    now.addAndGet(UserBudgets.IDLE_RETENTION_NANOS);
    budgets.join(8);
    assertThat(budgets.users()).as("7 still owes 2 900 tokens, so it is kept").isEqualTo(2);
    budgets.join(7);
    assertThat(budgets.takeEvents(7, 1)).as("back within the debt: still refused").isNotNull();
  }

  @Test
  void everyConnectionOfAUserHoldsTheOneAccountTheUserIsChargedOnUntilItIsForgotten() {
    UserBudgets.Account phone = budgets.join(7);
    UserBudgets.Account tv = budgets.join(7);
    assertThat(tv).as("one account per user on this node").isSameAs(phone);
    assertThat(phone.uid()).isEqualTo(7);
    assertThat(budgets.join(8)).isNotSameAs(phone);
    for (int frame = 0; frame < 5; frame++) {
      assertThat(phone.takeEvents(100)).isNull();
      assertThat(tv.takeEvents(100)).isNull();
    }
    assertThat(budgets.takeEvents(7, 1)).as("what the connections took is the user's").isNotNull();
    assertThat(phone.takeDeletes(120)).isNull();
    assertThat(budgets.takeDeletes(7, 1)).isNotNull();

    budgets.otherNodesRead(7, 1);
    now.addAndGet(SECOND);
    assertThat(tv.takeEvents(50)).as("100 tokens back, 2 a piece across two nodes").isNull();
    assertThat(tv.takeEvents(1)).isNotNull();

    budgets.leave(7);
    budgets.leave(7);
    budgets.leave(8);
    now.addAndGet(UserBudgets.IDLE_RETENTION_NANOS + 60 * SECOND);
    budgets.join(9);
    assertThat(budgets.join(7)).as("a user forgotten after its last connection left comes back with a new account")
        .isNotSameAs(phone);
  }

  @Test
  void anAccountHeldByAnOpenConnectionIsNeverForgotten() {
    assertThat(budgets.takeAuth(7)).isNull(); // queued to be forgotten: no connection yet
    UserBudgets.Account held = budgets.join(7);
    now.addAndGet(UserBudgets.IDLE_RETENTION_NANOS + 60 * SECOND);
    budgets.join(9); // forgets what is due
    assertThat(budgets.join(7)).as("still the account the open connection holds").isSameAs(held);
  }
}
