package io.playline.node.write;

import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.DefaultEventLoop;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.PlatformDependent;
import io.playline.core.write.BatchOutcome;
import io.playline.core.write.FirstTodayCheck;
import io.playline.core.write.FirstTodayListener;
import io.playline.core.write.HistoryWriter;
import io.playline.core.write.UserWrite;
import io.playline.core.write.WriteBatch;
import io.playline.core.write.WriteOutcome;
import io.playline.proto.v1.HistoryRecord;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's batched Redis write path: collects submissions ({@link PendingWrite}: a player's
 * heartbeat, an internal API {@code Report}) from every connection into batches and writes each
 * batch to Redis in one pipelined round trip. Below, "heartbeat" means any submission. A batch leaves when it holds {@code maxEvents} events, when its first
 * heartbeat waited {@code maxDelay}, or — with eager batching, the default — as soon as Redis
 * has no batch in flight: at low load a heartbeat goes at once, and under load batches grow while
 * earlier ones are in flight (group commit), so batching costs latency only when it saves round
 * trips. Each heartbeat's callback fires only after its batch is written, so acks follow
 * durability.
 *
 * <p>At moderate load eager batching sends nearly every heartbeat alone, and each pays a round trip
 * and the thread wake-ups around it. With an ack budget ({@link BatcherConfig#ackBudget()}), a batch
 * that would leave with no round trip ahead of it waits for company until its oldest heartbeat has
 * waited as long as the acks of earlier batches say the budget allows ({@link AckBudget}) — but
 * only while heartbeats arrive faster than one per such wait (a moving average of the gaps between
 * them), so the wait is expected to save a round trip; it leaves early once {@code
 * enoughHeartbeats} or {@code maxEvents} events joined.
 * While it waits, submitting does not wake the loop. At peak the budget changes nothing: batches
 * fill while a round trip is out and leave, full, when it ends. ({@code maxDelay} bounds the wait of
 * a batch behind a round trip; a waiting batch has none ahead of it.)
 *
 * <p>{@link #submit} is thread-safe and never blocks (event loops call it); a full queue refuses
 * the heartbeat. Batching runs on one event loop: the writer's own I/O loop when it has one
 * ({@link HistoryWriter#eventLoop()}; the write then goes straight to the Redis socket and its
 * answer is handled where it arrives), else a loop of the batcher's own. At most {@code
 * maxInFlight} batches await Redis at once; a batch that waits {@code inFlightWait} for a free
 * slot fails.
 */
public final class WriteBatcher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WriteBatcher.class);

  private final BatcherConfig config;
  private final HistoryWriter writer;
  private final FlagCalendar calendar;
  private final FirstTodayListener firstTodayListener;
  private final AppliedListener appliedListener;
  private final Clock clock;
  private final BatchMetrics metrics;
  private final Queue<PendingWrite> queue;
  private final EventExecutor loop;
  private final @Nullable DefaultEventLoop ownLoop;
  private final AtomicBoolean drainPending = new AtomicBoolean();
  private final Runnable drainTask = this::drain;
  private final KnownToday knownToday = new KnownToday();
  private final LongSupplier arrivalClock;
  /** Written on the loop (its wait is read by the metrics too). */
  private final AckBudget budget;
  /** Events of the queued heartbeats: a waiting batch leaves once they fill a batch. */
  private final AtomicInteger queuedEvents = new AtomicInteger();
  private volatile boolean running = true;
  /** A batch waits for company ({@link BatcherConfig#ackBudget()}); written on the loop, read by submitters. */
  private volatile boolean waiting;

  // Confined to the loop.
  private List<PendingWrite> batch = new ArrayList<>();
  private int batchEvents;
  private long batchStartNanos;
  private int inFlight;
  private long timerAtNanos = Long.MAX_VALUE;
  /** When the waiting batch's oldest heartbeat was read. */
  private long waitStartNanos;
  private int waitGeneration;
  /** Moving average of the gap between heartbeats (by {@link #arrivalClock}); MAX_VALUE until known. */
  private long gapNanos = Long.MAX_VALUE;
  private long lastArrivalsNanos = Long.MIN_VALUE;

  public WriteBatcher(BatcherConfig config, HistoryWriter writer, FlagCalendar calendar,
      FirstTodayListener firstTodayListener, Clock clock, MeterRegistry registry) {
    this(config, writer, calendar, firstTodayListener, clock, registry, AppliedListener.NONE);
  }

  /** As above; {@code appliedListener} is told, after each ack, which of the heartbeat's records were applied. */
  public WriteBatcher(BatcherConfig config, HistoryWriter writer, FlagCalendar calendar,
      FirstTodayListener firstTodayListener, Clock clock, MeterRegistry registry, AppliedListener appliedListener) {
    this(config, writer, calendar, firstTodayListener, clock, registry, appliedListener, System::nanoTime);
  }

  /** As above, timing heartbeat arrivals (for the decision to wait only) with {@code arrivalClock}. */
  WriteBatcher(BatcherConfig config, HistoryWriter writer, FlagCalendar calendar,
      FirstTodayListener firstTodayListener, Clock clock, MeterRegistry registry, AppliedListener appliedListener,
      LongSupplier arrivalClock) {
    this.config = config;
    this.arrivalClock = arrivalClock;
    this.budget = new AckBudget(config.ackBudget());
    this.appliedListener = appliedListener;
    this.writer = writer;
    this.calendar = calendar;
    this.firstTodayListener = firstTodayListener;
    this.clock = clock;
    this.metrics = new BatchMetrics(registry);
    this.queue = PlatformDependent.newFixedMpscQueue(config.queueCapacity());
    EventExecutor writerLoop = writer.eventLoop();
    this.ownLoop = writerLoop == null ? new DefaultEventLoop(new DefaultThreadFactory("playline-heartbeat-batcher", true))
        : null;
    this.loop = writerLoop != null ? writerLoop : ownLoop;
    metrics.bindQueue(registry, queue);
    metrics.bindWait(registry, config.ackBudget(), this, b -> b.budget.waitNanos());
  }

  public BatchMetrics metrics() {
    return metrics;
  }

  /** Queues a heartbeat; false when the queue is full (the caller answers with an error). */
  public boolean submit(PendingWrite heartbeat) {
    if (!running || !queue.offer(heartbeat)) {
      metrics.refused.increment();
      return false;
    }
    metrics.heartbeats.increment();
    metrics.events.increment(heartbeat.records().size());
    int events = queuedEvents.addAndGet(heartbeat.records().size());
    if (waiting && !companyEnough(events)) {
      return true; // the waiting batch's timer (or the heartbeat that fills it) drains the queue
    }
    if (wake()) {
      metrics.wakeups.increment();
    }
    return true;
  }

  /**
   * Makes the loop drain the queue soon (once, however many heartbeats arrive meanwhile); true when
   * this call scheduled the drain.
   */
  private boolean wake() {
    if (drainPending.compareAndSet(false, true)) {
      try {
        loop.execute(drainTask);
        return true;
      } catch (RejectedExecutionException e) {
        drainPending.set(false); // the loop is gone: close() fails what is left
      }
    }
    return false;
  }

  /** On the loop: moves queued heartbeats into batches and sends what is due. */
  private void drain() {
    drainPending.set(false);
    boolean waited = false;
    if (waiting) {
      if (running && !companyEnough(queuedEvents.get())) {
        return; // woken before the batch has company enough; its timer ends the wait
      }
      waiting = false;
      waited = true;
    } else {
      long wait = waitFor();
      if (wait > 0) {
        waiting = true;
        metrics.waited.increment();
        int generation = ++waitGeneration;
        loop.schedule(() -> {
          if (waiting && waitGeneration == generation) {
            waiting = false;
            drain(true);
          }
        }, wait, TimeUnit.NANOSECONDS);
        return;
      }
    }
    drain(waited);
  }

  /**
   * How much longer a batch about to leave alone should wait for company, 0 for not at all: only
   * with an ack budget, while Redis is idle, the queue holds too few heartbeats, and they have been
   * arriving faster than one per wait — counted from when the oldest queued heartbeat was read.
   * (Heartbeats that arrive while a round trip is out join the next batch, which leaves when it ends.)
   */
  private long waitFor() {
    if (!budget.enabled() || !config.eager() || !running || inFlight != 0 || !batch.isEmpty()) {
      return 0;
    }
    PendingWrite oldest = queue.peek();
    long wait = budget.waitNanos();
    if (oldest == null || companyEnough(queuedEvents.get()) || gapNanos >= wait) {
      return 0;
    }
    waitStartNanos = oldest.receivedNanos();
    return waitStartNanos + wait - System.nanoTime();
  }

  /** Whether the queue holds company enough for a batch to leave: enough heartbeats or a batch's worth of events. */
  private boolean companyEnough(int events) {
    return queue.size() >= config.enoughHeartbeats() || events >= config.maxEvents();
  }

  /** Folds the heartbeats of one drain into the moving average of the gap between arrivals. */
  private void arrived(int heartbeats) {
    if (!budget.enabled()) {
      return; // the gap only decides waiting
    }
    long now = arrivalClock.getAsLong();
    long last = lastArrivalsNanos;
    lastArrivalsNanos = now;
    if (last == Long.MIN_VALUE) {
      return;
    }
    // A long quiet spell counts as a few budgets, so the average recovers within a few heartbeats.
    long gap = Math.min((now - last) / heartbeats, 4 * config.ackBudget().toNanos());
    gapNanos = gapNanos == Long.MAX_VALUE ? gap : gapNanos + (gap - gapNanos) / 8;
  }

  /** Moves queued heartbeats into batches and sends what is due; {@code waited}: the batch waited from waitStartNanos. */
  private void drain(boolean waited) {
    int polled = 0;
    int polledEvents = 0;
    while (true) {
      if (batchEvents >= config.maxEvents()) {
        if (inFlight >= config.maxInFlight()) {
          break; // a finishing batch drains again
        }
        send();
        continue;
      }
      PendingWrite next = queue.poll();
      if (next == null) {
        break;
      }
      if (batch.isEmpty()) {
        batchStartNanos = waited ? waitStartNanos : System.nanoTime();
      }
      polled++;
      polledEvents += next.records().size();
      batch.add(next);
      batchEvents += next.records().size();
    }
    if (polled > 0) {
      queuedEvents.addAndGet(-polledEvents); // once per drain, not per heartbeat
      arrived(polled);
    }
    if (batch.isEmpty()) {
      return;
    }
    long age = System.nanoTime() - batchStartNanos;
    if (inFlight < config.maxInFlight()) {
      if ((config.eager() && inFlight == 0) || age >= config.maxDelay().toNanos() || !running) {
        send();
      } else {
        timer(config.maxDelay().toNanos() - age);
      }
    } else if (age >= config.inFlightWait().toNanos()) {
      List<PendingWrite> stuck = takeBatch();
      fail(stuck, new IllegalStateException("Redis did not answer " + config.maxInFlight() + " batches in time"));
      wake();
    } else {
      timer(config.inFlightWait().toNanos() - age);
    }
  }

  /** Drains again in {@code delayNanos} unless an earlier drain is already scheduled. */
  private void timer(long delayNanos) {
    long at = System.nanoTime() + delayNanos;
    if (timerAtNanos != Long.MAX_VALUE && timerAtNanos - at <= 0) {
      return;
    }
    timerAtNanos = at;
    loop.schedule(() -> {
      if (timerAtNanos == at) {
        timerAtNanos = Long.MAX_VALUE;
      }
      drain();
    }, Math.max(delayNanos, 0), TimeUnit.NANOSECONDS);
  }

  private List<PendingWrite> takeBatch() {
    List<PendingWrite> taken = batch;
    batch = new ArrayList<>();
    batchEvents = 0;
    return taken;
  }

  private void send() {
    int events = batchEvents;
    List<PendingWrite> sent = takeBatch();
    inFlight++;
    long nowMs = clock.millis();
    FlagCalendar.Day day = calendar.dayOf(nowMs);
    List<UserWrite> writes = new ArrayList<>(sent.size());
    List<FirstTodayCheck> checks = new ArrayList<>();
    int[] checkIndex = new int[sent.size()];
    for (int i = 0; i < sent.size(); i++) {
      PendingWrite h = sent.get(i);
      writes.add(new UserWrite(h.uid(), h.records()));
      checkIndex[i] = -1;
      if (h.checkFirstToday()) {
        if (knownToday.contains(day.compact(), h.uid())) {
          metrics.firstTodayLocalSkips.increment();
        } else {
          checkIndex[i] = checks.size();
          checks.add(new FirstTodayCheck(h.uid(), h.deviceId(), h.platform()));
          metrics.firstTodayRedisChecks.increment();
        }
      }
    }
    metrics.batchEvents.record(events);
    metrics.batchHeartbeats.record(sent.size());
    long start = System.nanoTime();
    long oldestRead = start;
    for (PendingWrite h : sent) {
      metrics.stageWait.record(start - h.receivedNanos(), TimeUnit.NANOSECONDS);
      oldestRead = Math.min(oldestRead, h.receivedNanos());
    }
    long oldestReadNanos = oldestRead;
    WriteBatch writeBatch = new WriteBatch(nowMs, day.compact(), day.bitmapExpiryMs(nowMs), writes, checks);
    CompletionStage<BatchOutcome> written;
    try {
      written = writer.write(writeBatch);
    } catch (RuntimeException e) {
      inFlight--;
      log.error("Heartbeat batch failed unexpectedly", e);
      fail(sent, e);
      return;
    }
    written.whenComplete((outcome, error) -> {
      if (loop.inEventLoop()) {
        finished(sent, outcome, error, checkIndex, day, nowMs, start, oldestReadNanos);
      } else {
        // e.g. a command timeout completes on a timer thread
        loop.execute(() -> finished(sent, outcome, error, checkIndex, day, nowMs, start, oldestReadNanos));
      }
    });
  }

  private void finished(List<PendingWrite> sent, @Nullable BatchOutcome outcome, @Nullable Throwable error,
      int[] checkIndex, FlagCalendar.Day day, long nowMs, long start, long oldestReadNanos) {
    inFlight--;
    long end = System.nanoTime();
    budget.answered(end - oldestReadNanos);
    metrics.latency(end - start);
    metrics.ackLatency(end - oldestReadNanos);
    for (int i = 0; i < sent.size(); i++) {
      metrics.stageRedis.record(end - start, TimeUnit.NANOSECONDS);
    }
    try {
      if (error != null || outcome == null) {
        fail(sent, error != null ? error : new IllegalStateException("no outcome"));
      } else {
        deliver(sent, outcome, checkIndex, day, nowMs);
      }
    } catch (RuntimeException e) {
      log.error("Delivering a heartbeat batch's outcome failed", e);
    }
    // More may have queued (or a full batch waited for this slot) meanwhile.
    if (!batch.isEmpty() || !queue.isEmpty()) {
      wake();
    }
  }

  private void deliver(List<PendingWrite> batch, BatchOutcome outcome, int[] checkIndex, FlagCalendar.Day day,
      long nowMs) {
    for (int i = 0; i < batch.size(); i++) {
      PendingWrite h = batch.get(i);
      boolean first = checkIndex[i] >= 0 && outcome.firstToday()[checkIndex[i]];
      if (h.checkFirstToday()) {
        knownToday.add(day.compact(), h.uid());
      }
      if (first) {
        metrics.firstTodayTrue.increment();
        firstTodayListener.firstToday(h.uid(), day.iso(), h.deviceId(), h.platform(), nowMs);
      }
      metrics.acks.increment();
      answer(h, outcome.writes().get(i), first, day, null);
      notifyApplied(h, outcome.writes().get(i));
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

  private void fail(List<PendingWrite> batch, Throwable error) {
    log.warn("Writing {} heartbeats to Redis failed: {}", batch.size(), error.toString());
    FlagCalendar.Day day = calendar.dayOf(clock.millis());
    for (PendingWrite h : batch) {
      metrics.failed.increment();
      answer(h, null, false, day, error);
    }
  }

  /**
   * Hands one heartbeat its result. Callbacks may ack on this very loop (a connection sharing it):
   * one that throws must not cost the rest of the batch their answers.
   */
  private static void answer(PendingWrite h, @Nullable WriteOutcome outcome, boolean firstToday,
      FlagCalendar.Day day, @Nullable Throwable error) {
    try {
      h.callback().done(outcome, firstToday, day, error);
    } catch (RuntimeException e) {
      log.warn("Answering a heartbeat of user {} failed: {}", h.uid(), e.toString());
    }
  }

  /**
   * Stops taking heartbeats, sends what is queued at once, and waits (bounded) until Redis
   * answered every batch, so connections get their acks before the writer goes away.
   */
  @Override
  public void close() {
    running = false;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    try {
      while (System.nanoTime() - deadline < 0 && !loop.isShuttingDown()) {
        wake();
        if (loop.submit(() -> inFlight == 0 && batch.isEmpty() && queue.isEmpty()).get(1, TimeUnit.SECONDS)) {
          break;
        }
        Thread.sleep(10);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
      log.warn("Heartbeat batcher did not drain: {}", e.toString());
    }
    if (ownLoop != null) {
      ownLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
    List<PendingWrite> left = new ArrayList<>();
    for (PendingWrite h; (h = queue.poll()) != null; ) {
      left.add(h);
    }
    if (!left.isEmpty()) {
      fail(left, new IllegalStateException("the gateway is shutting down"));
    }
  }
}
