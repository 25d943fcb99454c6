package io.playline.node.write;

import io.playline.core.write.FirstTodayCheck;
import io.playline.core.write.UserWrite;
import io.playline.core.write.WriteBatch;
import io.playline.time.Time;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the submissions of one batch into the {@link WriteBatch} Redis gets: one write per
 * submission, and a first-today check for each user this node does not already know was counted
 * today. Counts the batch's first-today skips and checks, once per batch. Confined to the batcher's
 * loop.
 */
final class WriteBatchAssembler {
  private final FlagCalendar calendar;
  private final Time time;
  private final KnownToday knownToday;
  private final BatchMetrics metrics;

  WriteBatchAssembler(FlagCalendar calendar, Time time, KnownToday knownToday, BatchMetrics metrics) {
    this.calendar = calendar;
    this.time = time;
    this.knownToday = knownToday;
    this.metrics = metrics;
  }

  /** The batch of {@code sent}, which hold {@code events} events, leaving now. */
  SentBatch assemble(List<PendingWrite> sent, int events) {
    long nowMs = time.millis();
    FlagCalendar.Day day = calendar.dayOf(nowMs);
    List<UserWrite> writes = new ArrayList<>(sent.size());
    List<FirstTodayCheck> checks = new ArrayList<>();
    int[] checkIndex = new int[sent.size()];
    int echoSkips = 0;
    int localSkips = 0;
    for (int i = 0; i < sent.size(); i++) {
      PendingWrite h = sent.get(i);
      writes.add(new UserWrite(h.uid(), h.records()));
      checkIndex[i] = -1;
      if (!h.checkFirstToday()) {
        echoSkips++; // the client echoed today's date, or its connection knows it was counted today
      } else if (knownToday.contains(day.compact(), h.uid())) {
        localSkips++;
      } else {
        checkIndex[i] = checks.size();
        checks.add(new FirstTodayCheck(h.uid(), h.deviceId(), h.platform()));
      }
    }
    metrics.firstTodayEchoSkips.increment(echoSkips);
    metrics.firstTodayLocalSkips.increment(localSkips);
    metrics.firstTodayRedisChecks.increment(checks.size());
    metrics.batchEvents.record(events);
    metrics.batchHeartbeats.record(sent.size());
    long start = time.nanoTime();
    long oldestRead = start;
    for (PendingWrite h : sent) {
      metrics.stageWait.record(start - h.receivedNanos());
      oldestRead = Math.min(oldestRead, h.receivedNanos());
    }
    WriteBatch write = new WriteBatch(nowMs, day.compact(), day.bitmapExpiryMs(nowMs), writes, checks);
    return new SentBatch(sent, checkIndex, day, nowMs, start, oldestRead, write);
  }
}
