package io.playline.node.write;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.playline.time.Time;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/** Meters of the heartbeat path: sizes, latency, refusals, first-today checks and skips. Thread-safe. */
public final class BatchMetrics {
  final Counter heartbeats;
  final Counter events;
  final Counter acks;
  final Counter refused;
  final Counter failed;
  final Counter waited;
  final Counter wakeups;
  final DistributionSummary batchEvents;
  final DistributionSummary batchHeartbeats;
  final Timer batchLatency;
  final Timer ackLatency;
  final StageHistogram stageWait;
  final StageHistogram stageRedis;
  private final StageHistogram stageNode;
  private final @Nullable Runnable unregisterStages;
  final Counter firstTodayEchoSkips;
  final Counter firstTodayLocalSkips;
  final Counter firstTodayRedisChecks;
  final Counter firstTodayTrue;
  private final Time time;
  private volatile Queue<?> queue;

  BatchMetrics(MeterRegistry registry, Time time) {
    this.time = time;
    heartbeats = Counter.builder("playline.heartbeats")
        .description("Heartbeats with events the write path took off its queue (written or failed)").register(registry);
    events = Counter.builder("playline.heartbeat.events").register(registry);
    acks = Counter.builder("playline.heartbeat.acks").register(registry);
    refused = Counter.builder("playline.heartbeat.refused").description("Heartbeats refused because the batcher queue was full")
        .register(registry);
    failed = Counter.builder("playline.heartbeat.failed").description("Heartbeats whose Redis write failed").register(registry);
    waited = Counter.builder("playline.heartbeat.batch.waited")
        .description("Batches that waited for company within heartbeat.ack.budget").register(registry);
    wakeups = Counter.builder("playline.heartbeat.batcher.wakeups")
        .description("Times a submitted heartbeat woke the batching loop (a waiting batch's heartbeats do not)")
        .register(registry);
    batchEvents = DistributionSummary.builder("playline.heartbeat.batch.size").baseUnit("events").register(registry);
    batchHeartbeats = DistributionSummary.builder("playline.heartbeat.batch.heartbeats").register(registry);
    batchLatency = Timer.builder("playline.heartbeat.batch.latency").description("Redis round trip of one batch")
        .publishPercentiles(0.5, 0.99).register(registry);
    ackLatency = Timer.builder("playline.heartbeat.ack.latency")
        .description("From reading the oldest heartbeat of a batch to the batch's acks: the longest any "
            + "heartbeat of the batch spent in the node before its ack (hand-off, wait for company, Redis round trip)")
        .publishPercentiles(0.5, 0.99).register(registry);
    stageWait = new StageHistogram();
    stageRedis = new StageHistogram();
    stageNode = new StageHistogram();
    unregisterStages = registerStages(registry, stageWait, stageRedis, stageNode);
    firstTodayEchoSkips = Counter.builder("playline.first.today").tag("result", "echo_skip").register(registry);
    firstTodayLocalSkips = Counter.builder("playline.first.today").tag("result", "local_skip").register(registry);
    firstTodayRedisChecks = Counter.builder("playline.first.today").tag("result", "redis_check").register(registry);
    firstTodayTrue = Counter.builder("playline.first.today").tag("result", "first").register(registry);
  }

  /**
   * {@code playline_heartbeat_stage_seconds{stage}}, each heartbeat's timeline in the node as
   * histograms, so that a scraper can take percentiles over any window from two scrapes; exposed on a
   * Prometheus registry (the node's), kept here only on any other. Returns how to take it off again.
   */
  private static @Nullable Runnable registerStages(MeterRegistry registry, StageHistogram wait, StageHistogram redis,
      StageHistogram node) {
    if (!(registry instanceof PrometheusMeterRegistry prometheus)) {
      return null;
    }
    Map<String, StageHistogram> stages = new LinkedHashMap<>();
    stages.put("wait", wait);
    stages.put("redis", redis);
    stages.put("node", node);
    StageCollector collector = new StageCollector(stages, "A heartbeat's time in the node by stage: wait (from "
        + "reading it to sending its batch to Redis: queue hand-off, batching window, a round trip in flight), "
        + "redis (its batch's Redis round trip, counted once per heartbeat), node (from reading it to handing its "
        + "ack or error to the connection: its whole time in the node)");
    prometheus.getPrometheusRegistry().register(collector);
    return () -> prometheus.getPrometheusRegistry().unregister(collector);
  }

  /** A heartbeat received at {@code receivedNanos} (the batcher's clock) was answered now. */
  public void answered(long receivedNanos) {
    stageNode.record(time.nanoTime() - receivedNanos);
  }

  /** Heartbeat durations recorded so far for {@code stage}: wait, redis or node. */
  StageHistogram stage(String stage) {
    return switch (stage) {
      case "wait" -> stageWait;
      case "redis" -> stageRedis;
      case "node" -> stageNode;
      default -> throw new IllegalArgumentException("no heartbeat stage " + stage);
    };
  }

  /** Takes the stage histograms off the node's registry (the write path closed). */
  void close() {
    if (unregisterStages != null) {
      unregisterStages.run();
    }
  }

  void bindQueue(MeterRegistry registry, Queue<?> queue) {
    this.queue = queue;
    registry.gauge("playline.heartbeat.queue.depth", queue, Queue::size);
  }

  /** How long a batch may wait for company now, as the acks of earlier batches steer it ({@link AckBudget}). */
  <T> void bindWait(MeterRegistry registry, Duration budget, T batcher, ToLongFunction<T> waitNanos) {
    TimeGauge.builder("playline.heartbeat.ack.budget", budget, TimeUnit.NANOSECONDS, Duration::toNanos)
        .description("heartbeat.ack.budget: how long a heartbeat may take from read to ack when waiting for "
            + "company saves Redis round trips").register(registry);
    TimeGauge.builder("playline.heartbeat.batch.wait", batcher, TimeUnit.NANOSECONDS, b -> waitNanos.applyAsLong(b))
        .description("How long a batch may now wait for company under heartbeat.ack.budget, as the acks of "
            + "earlier batches steer it").register(registry);
  }

  /** Heartbeats queued for a batch right now. */
  public int queueDepth() {
    Queue<?> q = queue;
    return q == null ? 0 : q.size();
  }

  void latency(long nanos) {
    batchLatency.record(nanos, TimeUnit.NANOSECONDS);
  }

  void ackLatency(long nanos) {
    ackLatency.record(nanos, TimeUnit.NANOSECONDS);
  }
}
