package io.playline.node.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.playline.core.write.FirstTodayListener;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.ManualTime;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A batcher on a {@link ManualTime} in front of a {@link HeldWriter}, and the heartbeats the tests
 * submit to it. Each submission and each advance of the time returns once the batcher's loop has
 * acted on it (and on what that handed on), so the tests assert what happened without waiting. The
 * tests move time to one timer's deadline at a time, so each timer runs at its own time. Used from
 * the test thread.
 */
final class BatcherHarness implements AutoCloseable {
  static final Duration LONG = Duration.ofSeconds(30);

  final HeldWriter writer = new HeldWriter();
  final AtomicInteger acked = new AtomicInteger();
  final AtomicInteger failed = new AtomicInteger();
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  /** Told which records each written heartbeat applied; set before {@code start}. */
  AppliedListener applied = AppliedListener.NONE;
  private final ManualTime time = new ManualTime();
  private WriteBatcher batcher;

  WriteBatcher start(int maxEvents, Duration maxDelay, boolean eager) {
    return start(new BatcherConfig(maxEvents, maxDelay, eager, 1024, 8, Duration.ofSeconds(5)));
  }

  /** With an ack budget of {@code budget}: a batch waits up to four fifths of it (starting at half that). */
  WriteBatcher startWaiting(Duration budget, int enoughHeartbeats) {
    return start(new BatcherConfig(512, LONG, true, 1024, 8, Duration.ofSeconds(5), budget, enoughHeartbeats));
  }

  WriteBatcher start(BatcherConfig config) {
    batcher = new WriteBatcher(config, writer, new FlagCalendar(ZoneOffset.UTC, time), FirstTodayListener.NONE,
        time, registry, applied);
    return batcher;
  }

  /** Moves the batcher's time, running the timers that fall due meanwhile. */
  void advance(Duration by) {
    time.advance(by);
    settle();
  }

  /**
   * Waits for the batcher's loop to act on what happened off it (an answered round trip, say, or a
   * timer that fell due): until it has run everything handed to it so far, and everything that
   * handed on.
   */
  void settle() {
    SingleThreadEventExecutor loop = (SingleThreadEventExecutor) batcher.loop();
    try {
      // Asked on the loop: from the test thread, a task just taken off the queue would look done.
      boolean idle;
      do {
        idle = loop.submit(() -> loop.pendingTasks() == 0).get(10, TimeUnit.SECONDS);
      } while (!idle);
    } catch (Exception e) {
      throw new AssertionError("the batcher's loop did not settle", e);
    }
  }

  /** Submits a heartbeat of {@code uid} read now. */
  void submit(long uid) {
    submitRead(uid, Duration.ZERO);
  }

  /** Submits a heartbeat of {@code uid} read now whose first-today bit is to be checked (no echo of today). */
  void submitUnechoed(long uid) {
    submit(uid, Duration.ZERO, true);
  }

  /** Submits a heartbeat of {@code uid} that the node read {@code ago}; its answer is timed as a connection does. */
  void submitRead(long uid, Duration ago) {
    submit(uid, ago, false);
  }

  private void submit(long uid, Duration ago, boolean checkFirstToday) {
    HistoryRecord r = HistoryRecord.newBuilder().setUid(uid).setBusiness(Business.VIDEO).setOid(7)
        .setProgressMs(1_000).setViewTimeMs(time.millis()).build();
    WriteBatcher b = batcher;
    long read = time.nanoTime() - ago.toNanos();
    assertThat(b.submit(new PendingWrite(uid, List.of(r), checkFirstToday, "s", "d", "test",
        (outcome, firstToday, day, error) -> {
          b.metrics().answered(read);
          (error == null ? acked : failed).incrementAndGet();
        }, read))).isTrue();
    settle();
  }

  /** Submits one heartbeat {@code gap} after the previous one. */
  void submitAfter(Duration gap, long uid) {
    advance(gap);
    submit(uid);
  }

  /**
   * Answers every batch at once and sends heartbeats 1 and 2 a millisecond apart: nothing is known
   * of the arrival rate before, so each leaves alone, at once; then the clock moves a millisecond
   * more, for the next heartbeat the tests submit.
   */
  void arriveEveryMillisecond() {
    writer.answerAll = true;
    submit(1);
    submitAfter(Duration.ofMillis(1), 2);
    assertThat(writer.batches).hasSize(2);
    advance(Duration.ofMillis(1));
  }

  WriteBatcher batcher() {
    return batcher;
  }

  int batches() {
    return writer.batches.size();
  }

  /** How many batches waited for company. */
  double waited() {
    return registry.get("playline.heartbeat.batch.waited").counter().count();
  }

  /** How long a batch may wait for company now. */
  Duration budgetWait() {
    return Duration.ofNanos((long) registry.get("playline.heartbeat.batch.wait").timeGauge()
        .value(TimeUnit.NANOSECONDS));
  }

  /** The counter {@code name}, with the tag {@code result} when given. */
  double counted(String name, String... tags) {
    return registry.get(name).tags(tags).counter().count();
  }

  double wakeups() {
    return registry.get("playline.heartbeat.batcher.wakeups").counter().count();
  }

  double maxMillis(String timer) {
    return registry.get(timer).timer().max(TimeUnit.MILLISECONDS);
  }

  /** Answers every batch written so far and every one close() still sends, then closes the batcher. */
  @Override
  public void close() {
    if (batcher == null) {
      return;
    }
    writer.answerAll = true;
    for (int i = 0; i < writer.batches.size(); i++) {
      writer.answer(i);
    }
    closeBatcher();
  }

  /** Closes the batcher as it stands. */
  void closeBatcher() {
    WriteBatcher b = batcher;
    batcher = null;
    b.close();
  }
}
