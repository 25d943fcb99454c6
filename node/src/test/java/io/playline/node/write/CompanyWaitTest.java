package io.playline.node.write;

import static io.playline.node.write.BatcherHarness.LONG;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * When a batch waits for company under an ack budget, and what ends the wait; on a clock the test
 * advances (every heartbeat is answered as soon as it is written, unless a test holds its round trip).
 */
class CompanyWaitTest {
  private final BatcherHarness h = new BatcherHarness();

  @AfterEach
  void stop() {
    h.close();
  }

  @Test
  void atLowLoadABatchWaitsForCompanyWhileHeartbeatsArriveFasterThanTheWait() {
    h.startWaiting(LONG, 3);
    // Heartbeats now come every millisecond, far faster than one per (12 s) wait: the next one waits
    // for company and leaves with the third heartbeat that joins it, long before its wait ends.
    h.arriveEveryMillisecond();
    h.submit(3);
    assertThat(h.batches()).isEqualTo(2);
    h.submit(4);
    h.submit(5);
    assertThat(h.batches()).isEqualTo(3);
    assertThat(h.writer.heartbeats(2)).isEqualTo(3);
    assertThat(h.acked).hasValue(5);
    assertThat(h.waited()).isEqualTo(1);
  }

  @Test
  void aWaitingBatchLeavesWhenItsShareOfTheBudgetIsUsed() {
    // A 1 s budget: a batch starts out waiting 400 ms (half of four fifths), 1/256 of 800 ms more
    // after each batch whose ack came within 800 ms (here heartbeats 1 and 2, acked at once).
    h.startWaiting(Duration.ofSeconds(1), 100);
    h.arriveEveryMillisecond();
    Duration wait = h.budgetWait();
    assertThat(wait).isEqualTo(Duration.ofMillis(400).plus(Duration.ofMillis(800).dividedBy(256).multipliedBy(2)));
    h.submit(3);
    h.submit(4);
    h.advance(wait.minusNanos(1));
    assertThat(h.batches()).isEqualTo(2);
    h.advance(Duration.ofNanos(1));
    assertThat(h.batches()).isEqualTo(3);
    assertThat(h.writer.heartbeats(2)).isEqualTo(2);
    // The ack latency counts the heartbeats' wait.
    assertThat(h.acked).hasValue(4);
    assertThat(h.maxMillis("playline.heartbeat.ack.latency")).isEqualTo(wait.toNanos() / 1e6);
  }

  @Test
  void heartbeatsArrivingWhileARoundTripIsOutWaitForCompanyToo() {
    roundTripOut(100);
    Duration wait = h.budgetWait();
    h.submit(4);
    h.submit(5);
    h.writer.answer(2);
    h.settle();
    // The round trip's end does not send them: they wait for company from when 4 was read, as a
    // batch with Redis idle does (without a budget they would have left as soon as it ended).
    assertThat(h.batches()).isEqualTo(3);
    h.advance(wait.minusNanos(1));
    assertThat(h.batches()).isEqualTo(3);
    h.advance(Duration.ofNanos(1));
    assertThat(h.batches()).isEqualTo(4);
    assertThat(h.writer.heartbeats(3)).isEqualTo(2);
    assertThat(h.waited()).isEqualTo(2);
  }

  @Test
  void aBatchThatWaitedLeavesWhenCompanyJoinsThoughARoundTripIsOut() {
    // A 30 s max delay: a batch that did not wait and has a round trip ahead would sit until it ended.
    roundTripOut(3);
    h.submit(4);
    h.submit(5);
    assertThat(h.batches()).isEqualTo(3);
    h.submit(6); // the third to join: company enough
    assertThat(h.batches()).isEqualTo(4);
    assertThat(h.writer.heartbeats(3)).isEqualTo(3);
  }

  @Test
  void aWaitingBatchLeavesOnceItsEventsFillABatch() {
    h.start(new BatcherConfig(3, LONG, true, 1024, 8, Duration.ofSeconds(5), LONG, 100));
    h.arriveEveryMillisecond();
    // Three one-event heartbeats fill a batch of max.events 3 long before 100 heartbeats joined or
    // the 12 s wait ends: waiting longer would save nothing.
    h.submit(3);
    assertThat(h.waited()).isEqualTo(1);
    h.submit(4);
    assertThat(h.batches()).isEqualTo(2);
    h.submit(5);
    assertThat(h.batches()).isEqualTo(3);
    assertThat(h.writer.heartbeats(2)).isEqualTo(3);
  }

  @Test
  void aBatchsWaitIsCountedFromWhenItsOldestHeartbeatWasRead() {
    h.startWaiting(LONG, 100);
    h.arriveEveryMillisecond();
    // Read 25 s ago (queued behind a slow hand-off, say): it has used more than the ~12 s a batch
    // may wait under a 30 s budget, so it leaves at once instead of waiting another 12 s.
    h.submitRead(3, Duration.ofSeconds(25));
    assertThat(h.batches()).isEqualTo(3);
    assertThat(h.waited()).isZero();
  }

  @Test
  void heartbeatsJoiningAWaitingBatchDoNotWakeTheLoop() {
    h.startWaiting(LONG, 100);
    h.arriveEveryMillisecond();
    h.submit(3);
    assertThat(h.waited()).isEqualTo(1);
    double wakeups = h.wakeups();
    for (int uid = 4; uid <= 23; uid++) {
      h.submit(uid);
    }
    assertThat(h.wakeups()).isEqualTo(wakeups);
    assertThat(h.batches()).isEqualTo(2);
  }

  @Test
  void aWaitThatEndedEarlyDoesNotCutTheNextOneShort() {
    h.startWaiting(Duration.ofSeconds(10), 2);
    h.arriveEveryMillisecond();
    // Wait 1 (about 4 s under a 10 s budget) opens with heartbeat 3 and ends early when heartbeat 4
    // fills the batch; its timer stays set.
    Duration wait1 = h.budgetWait();
    h.submit(3);
    assertThat(h.waited()).isEqualTo(1);
    h.submit(4);
    assertThat(h.batches()).isEqualTo(3);
    // Wait 2 opens with heartbeat 5 a second later, while wait 1's timer is still due (in about
    // 3 s): that timer must not end wait 2.
    h.advance(Duration.ofSeconds(1));
    Duration wait2 = h.budgetWait();
    assertThat(wait1.minusSeconds(1)).as("wait 1's timer falls due within wait 2").isLessThan(wait2);
    h.submit(5);
    assertThat(h.waited()).isEqualTo(2);
    h.advance(wait2.minusNanos(1));
    assertThat(h.batches()).isEqualTo(3);
    h.advance(Duration.ofNanos(1));
    assertThat(h.batches()).isEqualTo(4);
  }

  @Test
  void heartbeatsArrivingSlowerThanTheWaitLeaveAtOnce() {
    h.startWaiting(LONG, 3);
    h.writer.answerAll = true;
    // One heartbeat a minute against a 12 s wait: waiting would save nothing, so none waits
    // (each would otherwise hold its batch for 12 s).
    for (int uid = 1; uid <= 4; uid++) {
      h.submitAfter(Duration.ofMinutes(1), uid);
      assertThat(h.batches()).isEqualTo(uid);
    }
    assertThat(h.waited()).isZero();
  }

  @Test
  void closeEndsAWaitingBatchAtOnce() {
    h.startWaiting(LONG, 100);
    h.arriveEveryMillisecond();
    h.submit(3);
    assertThat(h.waited()).isEqualTo(1);
    // The clock never moves: only close can end the wait.
    h.closeBatcher();
    assertThat(h.acked).hasValue(3);
  }

  /**
   * A 1 s budget, heartbeats every millisecond, and heartbeat 3 waited, left alone as batch 2, and
   * its round trip is out, unanswered; a waiting batch leaves once {@code enough} heartbeats joined.
   */
  private void roundTripOut(int enough) {
    h.startWaiting(Duration.ofSeconds(1), enough);
    h.arriveEveryMillisecond();
    h.writer.answerAll = false;
    h.submit(3);
    h.advance(h.budgetWait());
    assertThat(h.batches()).isEqualTo(3);
  }
}
