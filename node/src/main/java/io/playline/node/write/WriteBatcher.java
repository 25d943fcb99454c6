package io.playline.node.write;

import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.DefaultEventLoop;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.playline.core.write.BatchOutcome;
import io.playline.core.write.FirstTodayListener;
import io.playline.core.write.HistoryWriter;
import io.playline.time.Time;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * waits for company until its oldest heartbeat has waited as long as the acks of earlier batches say
 * the budget allows ({@link AckBudget}) — whether or not a round trip is out meanwhile (a batch that
 * gathered behind one and left when it ended, as without a budget, left three in four batches small
 * at 5 000 heartbeats/s) — but only while heartbeats arrive faster than one per such wait (a moving
 * average of the gaps between them), so the wait is expected to save a round trip; it leaves early
 * once {@code enoughHeartbeats} or {@code maxEvents} events joined. While it waits, submitting does
 * not wake the loop. At peak the budget changes nothing: the queue holds company enough before a
 * batch could wait, and batches fill while a round trip is out and leave, full, when it ends.
 * ({@code maxDelay} bounds the wait of a batch behind a round trip that did not wait for company.)
 *
 * <p>The data flow, one class a step: {@link WriteIntake} (the queue) → {@link CompanyWait} (whether
 * a lone batch waits) → this class (cutting batches, in-flight slots, timers) → {@link
 * WriteBatchAssembler} (the write Redis gets) → {@link BatchAnswers} (acks). All batching time comes
 * from the node's {@link Time}: when a heartbeat was read, how long a batch waited, when its next
 * drain is due, and the server time a batch is written at.
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
  private final BatchMetrics metrics;
  private final EventExecutor loop;
  private final @Nullable DefaultEventLoop ownLoop;
  private final Time time;
  private final WriteIntake intake;
  /** Written on the loop (its wait is read by the metrics too). */
  private final CompanyWait companyWait;
  private final WriteBatchAssembler assembler;
  private final BatchAnswers answers;

  // Confined to the loop.
  private List<PendingWrite> batch = new ArrayList<>();
  private int batchEvents;
  private long batchStartNanos;
  private int inFlight;
  private long timerAtNanos = Long.MAX_VALUE;
  private int waitGeneration;

  public WriteBatcher(BatcherConfig config, HistoryWriter writer, FlagCalendar calendar,
      FirstTodayListener firstTodayListener, Time time, MeterRegistry registry) {
    this(config, writer, calendar, firstTodayListener, time, registry, AppliedListener.NONE);
  }

  /** As above; {@code appliedListener} is told, after each ack, which of the heartbeat's records were applied. */
  public WriteBatcher(BatcherConfig config, HistoryWriter writer, FlagCalendar calendar,
      FirstTodayListener firstTodayListener, Time time, MeterRegistry registry, AppliedListener appliedListener) {
    this.config = config;
    this.writer = writer;
    EventExecutor writerLoop = writer.eventLoop();
    this.ownLoop = writerLoop == null ? new DefaultEventLoop(new DefaultThreadFactory("playline-heartbeat-batcher", true))
        : null;
    this.loop = writerLoop != null ? writerLoop : ownLoop;
    this.time = time;
    this.metrics = new BatchMetrics(registry, time);
    this.intake = new WriteIntake(config, loop, this::drain, metrics, registry);
    this.companyWait = new CompanyWait(config.ackBudget(), time);
    KnownToday knownToday = new KnownToday();
    this.assembler = new WriteBatchAssembler(calendar, time, knownToday, metrics);
    this.answers = new BatchAnswers(calendar, time.clock(), knownToday, firstTodayListener, appliedListener, metrics);
    metrics.bindWait(registry, config.ackBudget(), companyWait, CompanyWait::waitNanos);
  }

  public BatchMetrics metrics() {
    return metrics;
  }

  /** Now on the batcher's clock: what {@link PendingWrite#receivedNanos()} is read from. Any thread. */
  public long nanoTime() {
    return time.nanoTime();
  }

  /** The loop batching runs on (tests wait for it to settle). */
  EventExecutor loop() {
    return loop;
  }

  /** Queues a heartbeat; false when the queue is full (the caller answers with an error). */
  public boolean submit(PendingWrite heartbeat) {
    return intake.submit(heartbeat);
  }

  /** On the loop: moves queued heartbeats into batches and sends what is due. */
  private void drain() {
    intake.draining();
    boolean waited = false;
    if (intake.waiting()) {
      if (intake.running() && !intake.companyEnough()) {
        return; // woken before the batch has company enough; its timer ends the wait
      }
      intake.waiting(false);
      waited = true;
    } else {
      long wait = waitFor();
      if (wait > 0) {
        intake.waiting(true);
        metrics.waited.increment();
        int generation = ++waitGeneration;
        time.schedule(loop, () -> {
          if (intake.waiting() && waitGeneration == generation) {
            intake.waiting(false);
            drain(true);
          }
        }, wait, TimeUnit.NANOSECONDS);
        return;
      }
    }
    drain(waited);
  }

  /**
   * How much longer the queued heartbeats should wait for company before they form a batch, 0 for
   * not at all: only with an ack budget ({@link CompanyWait#waitFor} says the rest), and not for
   * heartbeats already cut into a batch (one waiting for an in-flight slot).
   */
  private long waitFor() {
    if (!companyWait.enabled() || !config.eager() || !intake.running() || !batch.isEmpty()) {
      return 0;
    }
    return companyWait.waitFor(intake.peek(), intake);
  }

  /** Moves queued heartbeats into batches and sends what is due; {@code waited}: the batch waited for company. */
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
      PendingWrite next = intake.poll();
      if (next == null) {
        break;
      }
      if (batch.isEmpty()) {
        batchStartNanos = waited ? companyWait.startNanos() : time.nanoTime();
      }
      polled++;
      polledEvents += next.records().size();
      batch.add(next);
      batchEvents += next.records().size();
    }
    if (polled > 0) {
      intake.polled(polledEvents);
      companyWait.arrived(polled);
      // Every heartbeat the queue took is counted here, once per drain, whether its batch is then
      // written or fails.
      metrics.heartbeats.increment(polled);
      metrics.events.increment(polledEvents);
    }
    if (batch.isEmpty()) {
      return;
    }
    long age = time.nanoTime() - batchStartNanos;
    if (inFlight < config.maxInFlight()) {
      // A batch that waited for company leaves when its wait ends (or company enough joined), round
      // trip out or not; one that did not wait leaves when Redis is idle or after the max delay.
      if (waited || (config.eager() && inFlight == 0) || age >= config.maxDelay().toNanos() || !intake.running()) {
        send();
      } else {
        timer(config.maxDelay().toNanos() - age);
      }
    } else if (age >= config.inFlightWait().toNanos()) {
      List<PendingWrite> stuck = takeBatch();
      answers.fail(stuck, new IllegalStateException("Redis did not answer " + config.maxInFlight() + " batches in time"));
      intake.wake();
    } else {
      timer(config.inFlightWait().toNanos() - age);
    }
  }

  /** Drains again in {@code delayNanos} unless an earlier drain is already scheduled. */
  private void timer(long delayNanos) {
    long at = time.nanoTime() + delayNanos;
    if (timerAtNanos != Long.MAX_VALUE && timerAtNanos - at <= 0) {
      return;
    }
    timerAtNanos = at;
    time.schedule(loop, () -> {
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
    SentBatch out = assembler.assemble(sent, events);
    CompletionStage<BatchOutcome> written;
    try {
      written = writer.write(out.write());
    } catch (RuntimeException e) {
      inFlight--;
      log.error("Heartbeat batch failed unexpectedly", e);
      answers.fail(sent, e);
      return;
    }
    written.whenComplete((outcome, error) -> {
      if (loop.inEventLoop()) {
        finished(out, outcome, error);
      } else {
        // e.g. a command timeout completes on a timer thread
        loop.execute(() -> finished(out, outcome, error));
      }
    });
  }

  private void finished(SentBatch out, @Nullable BatchOutcome outcome, @Nullable Throwable error) {
    inFlight--;
    long end = time.nanoTime();
    companyWait.answered(out.oldestReadNanos(), end);
    answers.answered(out, outcome, error, end);
    // More may have queued (or a full batch waited for this slot) meanwhile.
    if (!batch.isEmpty() || !intake.isEmpty()) {
      intake.wake();
    }
  }

  /**
   * Stops taking heartbeats, sends what is queued at once, and waits (bounded by 10 s of the node's
   * time, polling the loop: this blocks the caller, not the batching) until Redis answered every
   * batch, so connections get their acks before the writer goes away.
   */
  @Override
  public void close() {
    intake.stop();
    long deadline = time.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    try {
      while (time.nanoTime() - deadline < 0 && !loop.isShuttingDown()) {
        intake.wake();
        if (loop.submit(() -> inFlight == 0 && batch.isEmpty() && intake.isEmpty()).get(1, TimeUnit.SECONDS)) {
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
    int leftEvents = 0;
    for (PendingWrite h; (h = intake.poll()) != null; ) {
      left.add(h);
      leftEvents += h.records().size();
    }
    if (!left.isEmpty()) {
      metrics.heartbeats.increment(left.size());
      metrics.events.increment(leftEvents);
      answers.fail(left, new IllegalStateException("the gateway is shutting down"));
    }
    metrics.close();
  }
}
