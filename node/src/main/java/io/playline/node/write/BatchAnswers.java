package io.playline.node.write;

import io.netty.util.concurrent.EventExecutor;
import io.playline.core.write.BatchOutcome;
import io.playline.core.write.FirstTodayListener;
import io.playline.core.write.WriteOutcome;
import io.playline.proto.v1.HistoryRecord;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of the write path: hands each submission of an answered (or failed) batch its result,
 * fires first-today events, and tells the applied listener which records moved the stored
 * progress. Callbacks may ack on this very loop (a connection sharing it); those of connections on
 * other loops go to each loop as one task per batch ({@link PendingWrite.Callback#executor()}), so a
 * batch wakes a loop once however many of its connections it answers. One that throws never costs
 * the rest of the batch their answers. Confined to the batcher's loop, but for {@link #fail} (also
 * called by {@code close()} once the loop is gone).
 */
final class BatchAnswers {
  private static final Logger log = LoggerFactory.getLogger(BatchAnswers.class);

  private final FlagCalendar calendar;
  private final Clock clock;
  private final KnownToday knownToday;
  private final FirstTodayListener firstTodayListener;
  private final AppliedListener appliedListener;
  private final BatchMetrics metrics;

  BatchAnswers(FlagCalendar calendar, Clock clock, KnownToday knownToday, FirstTodayListener firstTodayListener,
      AppliedListener appliedListener, BatchMetrics metrics) {
    this.calendar = calendar;
    this.clock = clock;
    this.knownToday = knownToday;
    this.firstTodayListener = firstTodayListener;
    this.appliedListener = appliedListener;
    this.metrics = metrics;
  }

  /** Redis answered {@code batch} at {@code endNanos} (batcher clock) with {@code outcome} or {@code error}. */
  void answered(SentBatch batch, @Nullable BatchOutcome outcome, @Nullable Throwable error, long endNanos) {
    metrics.latency(endNanos - batch.startNanos());
    metrics.ackLatency(endNanos - batch.oldestReadNanos());
    metrics.stageRedis.record(endNanos - batch.startNanos(), batch.heartbeats().size());
    try {
      if (error != null || outcome == null) {
        fail(batch.heartbeats(), error != null ? error : new IllegalStateException("no outcome"));
      } else {
        deliver(batch, outcome);
      }
    } catch (RuntimeException e) {
      log.error("Delivering a heartbeat batch's outcome failed", e);
    }
  }

  private void deliver(SentBatch batch, BatchOutcome outcome) {
    List<PendingWrite> heartbeats = batch.heartbeats();
    FlagCalendar.Day day = batch.day();
    Handoffs handoffs = null;
    int acks = 0;
    try {
      for (int i = 0; i < heartbeats.size(); i++) {
        PendingWrite h = heartbeats.get(i);
        int check = batch.checkIndex()[i];
        boolean first = check >= 0 && outcome.firstToday()[check];
        if (h.checkFirstToday()) {
          knownToday.add(day.compact(), h.uid());
        }
        if (first) {
          metrics.firstTodayTrue.increment();
          firstTodayListener.firstToday(h.uid(), day.iso(), h.deviceId(), h.platform(), batch.nowMs());
        }
        acks++;
        WriteOutcome written = outcome.writes().get(i);
        EventExecutor to = executorOf(h);
        if (to == null || to.inEventLoop()) {
          answer(h, written, first, day, null);
        } else {
          if (handoffs == null) {
            handoffs = new Handoffs();
          }
          handoffs.add(to, new Answer(h, written, first, day));
        }
      }
    } finally {
      metrics.acks.increment(acks);
      // What was gathered goes out even if a later submission's answer could not be built.
      if (handoffs != null) {
        handoffs.send();
      }
    }
    // Pushes once every answer was handed on (AppliedListener's contract): a device hears of another's
    // progress after the ack of its own heartbeat in the same batch, on its loop's task queue too.
    for (int i = 0; i < heartbeats.size(); i++) {
      notifyApplied(heartbeats.get(i), outcome.writes().get(i));
    }
  }

  /** The loop {@code h}'s answer is to be given on, null for here (a callback that cannot say hops itself). */
  private static @Nullable EventExecutor executorOf(PendingWrite h) {
    try {
      return h.callback().executor();
    } catch (RuntimeException e) {
      log.warn("The loop of a heartbeat of user {} is unknown; answering it here: {}", h.uid(), e.toString());
      return null;
    }
  }

  /** One written submission's answer, to be given on its callback's executor. */
  private record Answer(PendingWrite h, WriteOutcome outcome, boolean firstToday, FlagCalendar.Day day) {
    void give() {
      answer(h, outcome, firstToday, day, null);
    }
  }

  /**
   * The answers of one batch for callbacks on other loops, per loop (a node has a few: a linear
   * search beats a map), each loop's sent as one task.
   */
  private static final class Handoffs {
    private final List<EventExecutor> loops = new ArrayList<>(4);
    private final List<List<Answer>> answers = new ArrayList<>(4);

    void add(EventExecutor loop, Answer answer) {
      for (int i = 0; i < loops.size(); i++) {
        if (loops.get(i) == loop) {
          answers.get(i).add(answer);
          return;
        }
      }
      loops.add(loop);
      List<Answer> first = new ArrayList<>();
      first.add(answer);
      answers.add(first);
    }

    void send() {
      for (int i = 0; i < loops.size(); i++) {
        List<Answer> due = answers.get(i);
        try {
          loops.get(i).execute(() -> due.forEach(Answer::give));
        } catch (RejectedExecutionException e) {
          // The loop is shutting down: each callback hops (or fails to) on its own, as for a failed batch.
          due.forEach(Answer::give);
        }
      }
    }
  }

  /** Tells the applied listener which records moved the stored progress; its failures never reach acks. */
  private void notifyApplied(PendingWrite h, WriteOutcome outcome) {
    List<HistoryRecord> applied = null;
    for (int j = 0; !outcome.paused() && j < h.records().size() && j < outcome.codes().length; j++) {
      if (outcome.applied(j)) {
        if (applied == null) {
          applied = new ArrayList<>(h.records().size());
        }
        applied.add(h.records().get(j));
      }
    }
    if (applied != null) {
      try {
        appliedListener.onApplied(h.uid(), h.sessionId(), h.deviceId(), applied);
      } catch (RuntimeException e) {
        log.warn("Applied-records listener failed: {}", e.toString());
      }
    }
  }

  /** Answers every submission of {@code batch} with {@code error}. */
  void fail(List<PendingWrite> batch, Throwable error) {
    log.warn("Writing {} heartbeats to Redis failed: {}", batch.size(), error.toString());
    FlagCalendar.Day day = calendar.dayOf(clock.millis());
    for (PendingWrite h : batch) {
      metrics.failed.increment();
      answer(h, null, false, day, error);
    }
  }

  private static void answer(PendingWrite h, @Nullable WriteOutcome outcome, boolean firstToday,
      FlagCalendar.Day day, @Nullable Throwable error) {
    try {
      h.callback().done(outcome, firstToday, day, error);
    } catch (RuntimeException e) {
      log.warn("Answering a heartbeat of user {} failed: {}", h.uid(), e.toString());
    }
  }
}
