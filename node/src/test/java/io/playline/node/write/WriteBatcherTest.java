package io.playline.node.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import io.playline.core.write.BatchOutcome;
import io.playline.core.write.FirstTodayListener;
import io.playline.core.write.HistoryWriter;
import io.playline.core.write.WriteBatch;
import io.playline.core.write.WriteOutcome;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How the batcher cuts batches, against a writer whose round trips the test completes by hand
 * (no Redis involved: what is under test is when batches leave, not what they do).
 */
class WriteBatcherTest {
  private static final Duration LONG = Duration.ofSeconds(30);

  /** Records each batch; its round trip ends only when the test completes it. */
  static final class HeldWriter implements HistoryWriter {
    final List<WriteBatch> batches = new CopyOnWriteArrayList<>();
    final List<CompletableFuture<BatchOutcome>> pending = new CopyOnWriteArrayList<>();
    /** From now on every batch is answered as soon as it is written. */
    volatile boolean answerAll;

    @Override
    public synchronized CompletionStage<BatchOutcome> write(WriteBatch batch) {
      CompletableFuture<BatchOutcome> f = new CompletableFuture<>();
      batches.add(batch);
      pending.add(f);
      if (answerAll) {
        answer(batches.size() - 1);
      }
      return f;
    }

    void answer(int i) {
      WriteBatch batch = batches.get(i);
      List<WriteOutcome> outcomes = new ArrayList<>();
      for (var w : batch.writes()) {
        byte[] codes = new byte[w.records().size()];
        Arrays.fill(codes, WriteOutcome.UPDATED);
        outcomes.add(new WriteOutcome(false, codes));
      }
      pending.get(i).complete(new BatchOutcome(outcomes, new boolean[batch.firstTodays().size()]));
    }

    int heartbeats(int i) {
      return batches.get(i).writes().size();
    }
  }

  private final HeldWriter writer = new HeldWriter();
  private final AtomicInteger acked = new AtomicInteger();
  private WriteBatcher batcher;

  private final AtomicInteger failed = new AtomicInteger();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private WriteBatcher start(int maxEvents, Duration maxDelay, boolean eager) {
    return start(new BatcherConfig(maxEvents, maxDelay, eager, 1024, 8, Duration.ofSeconds(5)));
  }

  private WriteBatcher start(BatcherConfig config) {
    batcher = new WriteBatcher(config,
        writer, new FlagCalendar(ZoneOffset.UTC), FirstTodayListener.NONE, Clock.systemUTC(), registry);
    return batcher;
  }

  /** Arrival times the decision to wait sees; the tests move it by hand. */
  private final java.util.concurrent.atomic.AtomicLong arrivalNanos = new java.util.concurrent.atomic.AtomicLong();

  /** With an ack budget of {@code budget}: a batch waits up to four fifths of it (less the expected round trip). */
  private WriteBatcher startWaiting(Duration budget, int enoughHeartbeats) {
    batcher = new WriteBatcher(new BatcherConfig(512, LONG, true, 1024, 8, Duration.ofSeconds(5), budget,
        enoughHeartbeats), writer, new FlagCalendar(ZoneOffset.UTC), FirstTodayListener.NONE, Clock.systemUTC(),
        registry, AppliedListener.NONE, arrivalNanos::get);
    return batcher;
  }

  /** Submits one heartbeat {@code gap} after the previous one (by the arrival clock) and waits until it is batched. */
  private void submitAfter(Duration gap, long uid, int batchesAfter) {
    arrivalNanos.addAndGet(gap.toNanos());
    submit(uid);
    await().atMost(Duration.ofSeconds(10)).until(() -> writer.batches.size() == batchesAfter);
  }

  /**
   * Answers every batch at once and sends heartbeats 1 and 2 a millisecond apart: nothing is known
   * of the arrival rate before, so each leaves alone, at once; then the clock moves a millisecond
   * more, for the next heartbeat the tests submit.
   */
  private void arriveEveryMillisecond() {
    writer.answerAll = true;
    submitAfter(Duration.ZERO, 1, 1);
    submitAfter(Duration.ofMillis(1), 2, 2);
    arrivalNanos.addAndGet(Duration.ofMillis(1).toNanos());
  }

  @AfterEach
  void stop() {
    if (batcher == null) {
      return;
    }
    // Answer every batch written so far and every one close() still sends.
    writer.answerAll = true;
    for (int i = 0; i < writer.batches.size(); i++) {
      writer.answer(i);
    }
    batcher.close();
  }

  /** Submits a heartbeat of {@code uid} that the node read {@code ago}. */
  private void submitRead(long uid, Duration ago) {
    HistoryRecord r = HistoryRecord.newBuilder().setUid(uid).setBusiness(Business.VIDEO).setOid(7)
        .setProgressMs(1_000).setViewTimeMs(System.currentTimeMillis()).build();
    assertThat(batcher.submit(new PendingWrite(uid, List.of(r), false, "s", "d", "test",
        (outcome, firstToday, day, error) -> acked.incrementAndGet(), System.nanoTime() - ago.toNanos()))).isTrue();
  }

  private void submit(long uid) {
    HistoryRecord r = HistoryRecord.newBuilder().setUid(uid).setBusiness(Business.VIDEO).setOid(7)
        .setProgressMs(1_000).setViewTimeMs(System.currentTimeMillis()).build();
    assertThat(batcher.submit(new PendingWrite(uid, List.of(r), false, "s", "d", "test",
        (outcome, firstToday, day, error) -> (error == null ? acked : failed).incrementAndGet()))).isTrue();
  }

  @Test
  void eagerBatchingSendsAtOnceWhenNothingIsInFlightAndGroupsWhileARoundTripIsOut() {
    start(512, LONG, true);
    submit(1);
    // Nothing in flight: the heartbeat leaves at once, not after the 30 s max delay.
    await().atMost(Duration.ofSeconds(5)).until(() -> writer.batches.size() == 1);
    submit(2);
    submit(3);
    submit(4);
    // A round trip is out: the next heartbeats wait for it (or the max delay), forming one batch.
    await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> writer.batches.size() == 1);
    writer.answer(0);
    await().atMost(Duration.ofSeconds(5)).until(() -> writer.batches.size() == 2);
    assertThat(writer.heartbeats(1)).isEqualTo(3);
    writer.answer(1);
    await().atMost(Duration.ofSeconds(5)).until(() -> acked.get() == 4);
  }

  @Test
  void aHeartbeatsWaitIsTimedFromWhenItWasReadAndItsBatchRoundTripOncePerHeartbeat() {
    start(512, LONG, true);
    submitRead(1, Duration.ofSeconds(2));
    await().atMost(Duration.ofSeconds(5)).until(() -> writer.batches.size() == 1);
    submit(2);
    submit(3);
    writer.answer(0);
    await().atMost(Duration.ofSeconds(5)).until(() -> writer.batches.size() == 2);
    writer.answer(1);
    await().atMost(Duration.ofSeconds(5)).until(() -> acked.get() == 3);
    var wait = registry.get("playline.heartbeat.stage").tag("stage", "wait").timer();
    assertThat(wait.count()).isEqualTo(3);
    assertThat(wait.max(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(2_000);
    // Two batches, three heartbeats: the round trip counts once per heartbeat.
    assertThat(registry.get("playline.heartbeat.stage").tag("stage", "redis").timer().count()).isEqualTo(3);
    assertThat(registry.get("playline.heartbeat.batch.latency").timer().count()).isEqualTo(2);
  }

  @Test
  void atLowLoadABatchWaitsForCompanyWhileHeartbeatsArriveFasterThanTheWait() {
    startWaiting(LONG, 3);
    // Heartbeats now come every millisecond, far faster than one per (12 s) wait: the next one waits
    // for company and leaves with the third heartbeat that joins it, long before its wait ends.
    arriveEveryMillisecond();
    submit(3);
    await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> writer.batches.size() == 2);
    submit(4);
    submit(5);
    await().atMost(Duration.ofSeconds(10)).until(() -> writer.batches.size() == 3);
    assertThat(writer.heartbeats(2)).isEqualTo(3);
    await().atMost(Duration.ofSeconds(5)).until(() -> acked.get() == 5);
    assertThat(waited()).isEqualTo(1);
  }

  @Test
  void aWaitingBatchLeavesWhenItsShareOfTheBudgetIsUsed() {
    // A 1 s budget: a batch starts out waiting 400 ms (half of four fifths), a little more after
    // each batch whose ack came within 800 ms.
    startWaiting(Duration.ofSeconds(1), 100);
    arriveEveryMillisecond();
    double waitMs = waitMs();
    assertThat(waitMs).isBetween(400.0, 420.0);
    long started = System.nanoTime();
    submit(3);
    submit(4);
    await().atMost(Duration.ofSeconds(10)).until(() -> writer.batches.size() == 3);
    assertThat(Duration.ofNanos(System.nanoTime() - started).toNanos() / 1e6).isGreaterThanOrEqualTo(waitMs);
    assertThat(writer.heartbeats(2)).isEqualTo(2);
    // The ack latency counts the heartbeats' wait.
    await().atMost(Duration.ofSeconds(10)).until(() -> acked.get() == 4);
    assertThat(registry.get("playline.heartbeat.ack.latency").timer().max(TimeUnit.MILLISECONDS))
        .isGreaterThanOrEqualTo(waitMs);
  }

  @Test
  void aWaitingBatchLeavesOnceItsEventsFillABatch() {
    batcher = new WriteBatcher(new BatcherConfig(3, LONG, true, 1024, 8, Duration.ofSeconds(5), LONG, 100), writer,
        new FlagCalendar(ZoneOffset.UTC), FirstTodayListener.NONE, Clock.systemUTC(), registry, AppliedListener.NONE,
        arrivalNanos::get);
    arriveEveryMillisecond();
    // Three one-event heartbeats fill a batch of max.events 3 long before 100 heartbeats joined or
    // the 12 s wait ends: waiting longer would save nothing.
    submit(3);
    await().atMost(Duration.ofSeconds(10)).until(() -> waited() == 1);
    submit(4);
    submit(5);
    await().atMost(Duration.ofSeconds(10)).until(() -> writer.batches.size() == 3);
    assertThat(writer.heartbeats(2)).isEqualTo(3);
  }

  private double waitMs() {
    return registry.get("playline.heartbeat.batch.wait").timeGauge().value(TimeUnit.MILLISECONDS);
  }

  @Test
  void aBatchsWaitIsCountedFromWhenItsOldestHeartbeatWasRead() {
    startWaiting(LONG, 100);
    arriveEveryMillisecond();
    // Read 25 s ago (queued behind a slow hand-off, say): it has used more than the ~12 s a batch
    // may wait under a 30 s budget, so it leaves at once instead of waiting another 12 s.
    submitRead(3, Duration.ofSeconds(25));
    await().atMost(Duration.ofSeconds(10)).until(() -> writer.batches.size() == 3);
    assertThat(waited()).isZero();
  }

  private double waited() {
    return registry.get("playline.heartbeat.batch.waited").counter().count();
  }

  @Test
  void heartbeatsJoiningAWaitingBatchDoNotWakeTheLoop() {
    startWaiting(LONG, 100);
    arriveEveryMillisecond();
    submit(3);
    await().atMost(Duration.ofSeconds(10)).until(() -> waited() == 1);
    double wakeups = registry.get("playline.heartbeat.batcher.wakeups").counter().count();
    for (int uid = 4; uid <= 23; uid++) {
      submit(uid);
    }
    assertThat(registry.get("playline.heartbeat.batcher.wakeups").counter().count()).isEqualTo(wakeups);
    assertThat(writer.batches).hasSize(2);
  }

  @Test
  void aWaitThatEndedEarlyDoesNotCutTheNextOneShort() throws InterruptedException {
    startWaiting(Duration.ofSeconds(10), 2);
    arriveEveryMillisecond();
    // Wait 1 (about 4 s under a 10 s budget) opens with heartbeat 3 and ends early when heartbeat 4
    // fills the batch; its timer stays set.
    double waitMs = waitMs();
    long opened1 = System.nanoTime();
    submit(3);
    await().pollInterval(Duration.ofMillis(10)).atMost(Duration.ofSeconds(10)).until(() -> waited() == 1);
    submit(4);
    await().pollInterval(Duration.ofMillis(10)).atMost(Duration.ofSeconds(10)).until(() -> writer.batches.size() == 3);
    // Wait 2 opens with heartbeat 5 a second later, while wait 1's timer is still due (in about
    // 3 s): that timer must not end wait 2. (The pause shapes the scenario; the assertions below
    // check that it left wait 1's timer pending.)
    Thread.sleep(1_000);
    arrivalNanos.addAndGet(Duration.ofMillis(1).toNanos());
    long opened2 = System.nanoTime();
    assertThat((opened2 - opened1) / 1e6).as("wait 1's timer is still pending").isLessThan(waitMs - 1_000);
    submit(5);
    await().atMost(Duration.ofSeconds(20)).until(() -> writer.batches.size() == 4);
    assertThat((System.nanoTime() - opened2) / 1e6).isGreaterThanOrEqualTo(waitMs);
    assertThat(waited()).isEqualTo(2);
  }

  @Test
  void aWaitingBatchNeverWaitsForMoreHeartbeatsThanTheQueueHolds() {
    assertThat(new BatcherConfig(512, LONG, true, 100, 8, LONG, Duration.ofMillis(25), 101).enoughHeartbeats())
        .isEqualTo(100);
  }

  @Test
  void aRetiredBatchingKeyIsRefusedNotIgnored() {
    for (String retired : List.of("heartbeat.batch.linger", "heartbeat.batch.linger.heartbeats")) {
      assertThatThrownBy(() -> BatcherConfig.from(ConfigSource.empty().with(Map.of(retired, "5"))))
          .isInstanceOf(ConfigException.class).hasMessageContaining(retired + " was replaced by heartbeat.ack.budget");
    }
    assertThat(BatcherConfig.from(ConfigSource.empty()).ackBudget()).isEqualTo(Duration.ofMillis(25));
  }

  @Test
  void heartbeatsArrivingSlowerThanTheWaitLeaveAtOnce() {
    startWaiting(LONG, 3);
    writer.answerAll = true;
    // One heartbeat a minute against a 12 s wait: waiting would save nothing, so none waits
    // (each would otherwise hold its batch for 12 s, past these awaits).
    for (int uid = 1; uid <= 4; uid++) {
      submitAfter(Duration.ofMinutes(1), uid, uid);
    }
    assertThat(waited()).isZero();
  }

  @Test
  void closeEndsAWaitingBatchAtOnce() {
    startWaiting(LONG, 100);
    arriveEveryMillisecond();
    submit(3);
    await().atMost(Duration.ofSeconds(5))
        .until(() -> waited() == 1);
    long started = System.nanoTime();
    batcher.close();
    assertThat(acked.get()).isEqualTo(3);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
    batcher = null;
  }

  @Test
  void withoutEagerBatchingAHeartbeatWaitsOutTheMaxDelay() {
    start(512, Duration.ofMillis(600), false);
    long started = System.nanoTime();
    submit(1);
    await().atMost(Duration.ofSeconds(5)).until(() -> writer.batches.size() == 1);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(600));
  }

  @Test
  void theAckLatencyCountsTheBatchingWindowWhereTheBatchLatencyCountsOnlyTheRoundTrip() {
    start(512, Duration.ofMillis(400), false);
    submit(1);
    await().atMost(Duration.ofSeconds(5)).until(() -> writer.batches.size() == 1);
    writer.answer(0);
    await().atMost(Duration.ofSeconds(5)).until(() -> acked.get() == 1);

    double ackMs = registry.get("playline.heartbeat.ack.latency").timer().max(TimeUnit.MILLISECONDS);
    double roundTripMs = registry.get("playline.heartbeat.batch.latency").timer().max(TimeUnit.MILLISECONDS);
    assertThat(ackMs).isGreaterThanOrEqualTo(400);
    assertThat(roundTripMs).isLessThan(ackMs - 300);
  }

  @Test
  void aBatchWaitingOnARoundTripStillLeavesAfterTheMaxDelay() {
    start(512, Duration.ofMillis(200), true);
    submit(1);
    await().atMost(Duration.ofSeconds(5)).until(() -> writer.batches.size() == 1);
    submit(2);
    // The first round trip never answers; the second batch goes when its max delay is up.
    await().atMost(Duration.ofSeconds(5)).until(() -> writer.batches.size() == 2);
    assertThat(writer.heartbeats(1)).isEqualTo(1);
  }

  @Test
  void aFullBatchLeavesWithoutWaiting() {
    start(3, LONG, true);
    submit(1);
    await().atMost(Duration.ofSeconds(5)).until(() -> writer.batches.size() == 1);
    for (int uid = 2; uid <= 7; uid++) {
      submit(uid);
    }
    // Round trip 1 is still out and the max delay is 30 s: only the size limit sends these.
    await().atMost(Duration.ofSeconds(5)).until(() -> writer.batches.size() == 3);
    assertThat(writer.heartbeats(1)).isEqualTo(3);
    assertThat(writer.heartbeats(2)).isEqualTo(3);
  }

  @Test
  void aBatchThatFindsNoFreeInFlightSlotInTimeFailsInsteadOfWaitingForever() {
    start(new BatcherConfig(512, Duration.ZERO, true, 1024, 1, Duration.ofMillis(300)));
    submit(1);
    await().atMost(Duration.ofSeconds(5)).until(() -> writer.batches.size() == 1);
    submit(2);
    // Round trip 1 never answers and it holds the only slot: heartbeat 2 fails with an error.
    await().atMost(Duration.ofSeconds(5)).until(() -> failed.get() == 1);
    assertThat(writer.batches).hasSize(1);
    assertThat(acked.get()).isZero();
  }

  @Test
  void aFullQueueRefusesHeartbeats() {
    start(new BatcherConfig(1, Duration.ZERO, true, 2, 1, Duration.ofSeconds(30)));
    submit(1);
    await().atMost(Duration.ofSeconds(5)).until(() -> writer.batches.size() == 1);
    // One batch out (the only slot), a full batch waiting: the queue holds 2 more, then refuses.
    submit(2);
    await().atMost(Duration.ofSeconds(5)).until(() -> batcher.metrics().queueDepth() == 0);
    submit(3);
    submit(4);
    HistoryRecord r = HistoryRecord.newBuilder().setUid(5).setBusiness(Business.VIDEO).setOid(7).build();
    assertThat(batcher.submit(new PendingWrite(5, List.of(r), false, "s", "d", "test",
        (outcome, firstToday, day, error) -> { }))).isFalse();
  }

  @Test
  void closeSendsWhatIsQueuedAndWaitsForTheAnswers() {
    start(512, LONG, false);
    submit(1);
    submit(2);
    Thread answering = new Thread(() -> {
      await().atMost(Duration.ofSeconds(5)).until(() -> writer.batches.size() == 1);
      writer.answer(0);
    });
    answering.start();
    batcher.close();
    // Without close the batch would have waited 30 s; close sent it and returned after its answer.
    assertThat(acked.get()).isEqualTo(2);
    batcher = null;
  }
}
