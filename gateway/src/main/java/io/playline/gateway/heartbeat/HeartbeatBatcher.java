package io.playline.gateway.heartbeat;

import io.micrometer.core.instrument.MeterRegistry;
import io.playline.core.write.BatchOutcome;
import io.playline.core.write.FirstTodayListener;
import io.playline.core.write.HistoryWriter;
import io.playline.core.write.UserWrite;
import io.playline.core.write.WriteBatch;
import io.playline.core.write.WriteOutcome;
import io.playline.proto.v1.HistoryRecord;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Collects heartbeats from every connection into batches and writes each batch to Redis in one
 * pipelined round trip, flushing when a batch holds {@code maxEvents} events or its first
 * heartbeat waited {@code maxDelay}. Each heartbeat's callback fires only after its batch is
 * written, so acks follow durability.
 *
 * <p>{@link #submit} is thread-safe and never blocks (event loops call it); a full queue refuses
 * the heartbeat. One daemon thread builds batches and calls the {@link HistoryWriter}, which is
 * therefore used from that thread only; at most {@code maxInFlight} batches await Redis at once.
 */
public final class HeartbeatBatcher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HeartbeatBatcher.class);

  private final BatcherConfig config;
  private final HistoryWriter writer;
  private final FlagCalendar calendar;
  private final FirstTodayListener firstTodayListener;
  private final AppliedListener appliedListener;
  private final Clock clock;
  private final HeartbeatMetrics metrics;
  private final BlockingQueue<PendingHeartbeat> queue;
  private final Semaphore inFlight;
  private final KnownToday knownToday = new KnownToday();
  private final Thread thread;
  private volatile boolean running = true;

  public HeartbeatBatcher(BatcherConfig config, HistoryWriter writer, FlagCalendar calendar,
      FirstTodayListener firstTodayListener, Clock clock, MeterRegistry registry) {
    this(config, writer, calendar, firstTodayListener, clock, registry, AppliedListener.NONE);
  }

  /** As above; {@code appliedListener} is told, after each ack, which of the heartbeat's records were applied. */
  public HeartbeatBatcher(BatcherConfig config, HistoryWriter writer, FlagCalendar calendar,
      FirstTodayListener firstTodayListener, Clock clock, MeterRegistry registry, AppliedListener appliedListener) {
    this.config = config;
    this.appliedListener = appliedListener;
    this.writer = writer;
    this.calendar = calendar;
    this.firstTodayListener = firstTodayListener;
    this.clock = clock;
    this.metrics = new HeartbeatMetrics(registry);
    this.queue = new ArrayBlockingQueue<>(config.queueCapacity());
    this.inFlight = new Semaphore(config.maxInFlight());
    metrics.bindQueue(registry, queue);
    this.thread = new Thread(this::run, "playline-heartbeat-batcher");
    thread.setDaemon(true);
    thread.start();
  }

  public HeartbeatMetrics metrics() {
    return metrics;
  }

  /** Queues a heartbeat; false when the queue is full (the caller answers with an error). */
  public boolean submit(PendingHeartbeat heartbeat) {
    if (!running || !queue.offer(heartbeat)) {
      metrics.refused.increment();
      return false;
    }
    metrics.heartbeats.increment();
    metrics.events.increment(heartbeat.records().size());
    return true;
  }

  private void run() {
    List<PendingHeartbeat> batch = new ArrayList<>();
    long maxDelayNanos = config.maxDelay().toNanos();
    while (running || !queue.isEmpty()) {
      try {
        PendingHeartbeat first = queue.poll(100, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        int events = first.records().size();
        long deadline = System.nanoTime() + maxDelayNanos;
        while (events < config.maxEvents()) {
          long left = deadline - System.nanoTime();
          PendingHeartbeat next = left > 0 ? queue.poll(left, TimeUnit.NANOSECONDS) : queue.poll();
          if (next == null) {
            break;
          }
          batch.add(next);
          events += next.records().size();
        }
        send(batch, events);
      } catch (InterruptedException e) {
        if (!running) {
          break;
        }
      } catch (RuntimeException e) {
        log.error("Heartbeat batch failed unexpectedly", e);
        fail(batch, e);
      }
      batch = new ArrayList<>();
    }
  }

  private void send(List<PendingHeartbeat> batch, int events) throws InterruptedException {
    // Take the in-flight slot before stamping: the write-back derives which recovery marks a
    // snapshot covers from the stamps of batches in flight, so a stamp must never predate the
    // moment its batch is announced to it by more than the configured stamp skew.
    if (!inFlight.tryAcquire(config.inFlightWait().toMillis(), TimeUnit.MILLISECONDS)) {
      fail(batch, new IllegalStateException("Redis did not answer " + config.maxInFlight() + " batches in time"));
      return;
    }
    long nowMs = clock.millis();
    FlagCalendar.Day day = calendar.dayOf(nowMs);
    List<UserWrite> writes = new ArrayList<>(batch.size());
    List<Long> checks = new ArrayList<>();
    int[] checkIndex = new int[batch.size()];
    for (int i = 0; i < batch.size(); i++) {
      PendingHeartbeat h = batch.get(i);
      writes.add(new UserWrite(h.uid(), h.records()));
      checkIndex[i] = -1;
      if (h.checkFirstToday()) {
        if (knownToday.contains(day.compact(), h.uid())) {
          metrics.firstTodayLocalSkips.increment();
        } else {
          checkIndex[i] = checks.size();
          checks.add(h.uid());
          metrics.firstTodayRedisChecks.increment();
        }
      }
    }
    metrics.batchEvents.record(events);
    metrics.batchHeartbeats.record(batch.size());
    long start = System.nanoTime();
    WriteBatch writeBatch = new WriteBatch(nowMs, day.compact(), day.bitmapExpiryMs(nowMs), writes, checks);
    java.util.concurrent.CompletionStage<BatchOutcome> written;
    try {
      written = writer.write(writeBatch);
    } catch (RuntimeException e) {
      inFlight.release();
      throw e;
    }
    written.whenComplete((outcome, error) -> {
      inFlight.release();
      metrics.latency(System.nanoTime() - start);
      if (error != null) {
        fail(batch, error);
      } else {
        deliver(batch, outcome, checkIndex, day, nowMs);
      }
    });
  }

  private void deliver(List<PendingHeartbeat> batch, BatchOutcome outcome, int[] checkIndex, FlagCalendar.Day day,
      long nowMs) {
    for (int i = 0; i < batch.size(); i++) {
      PendingHeartbeat h = batch.get(i);
      boolean first = checkIndex[i] >= 0 && outcome.firstToday()[checkIndex[i]];
      if (h.checkFirstToday()) {
        knownToday.add(day.compact(), h.uid());
      }
      if (first) {
        metrics.firstTodayTrue.increment();
        firstTodayListener.firstToday(h.uid(), day.iso(), h.deviceId(), h.platform(), nowMs);
      }
      metrics.acks.increment();
      h.callback().done(outcome.writes().get(i), first, day, null);
      notifyApplied(h, outcome.writes().get(i));
    }
  }

  /** Tells the applied listener which records moved the stored progress; its failures never reach acks. */
  private void notifyApplied(PendingHeartbeat h, WriteOutcome outcome) {
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

  private void fail(List<PendingHeartbeat> batch, Throwable error) {
    log.warn("Writing {} heartbeats to Redis failed: {}", batch.size(), error.toString());
    FlagCalendar.Day day = calendar.dayOf(clock.millis());
    for (PendingHeartbeat h : batch) {
      metrics.failed.increment();
      h.callback().done(null, false, day, error);
    }
  }

  /** Stops taking heartbeats, sends what is queued, and waits (bounded) for the thread to end. */
  @Override
  public void close() {
    running = false;
    try {
      thread.join(5_000);
      if (thread.isAlive()) {
        thread.interrupt();
      }
      // Let in-flight batches answer their connections before the writer goes away.
      if (inFlight.tryAcquire(config.maxInFlight(), 5, TimeUnit.SECONDS)) {
        inFlight.release(config.maxInFlight());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
