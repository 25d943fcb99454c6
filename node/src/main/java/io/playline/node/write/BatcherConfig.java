package io.playline.node.write;

import io.playline.core.config.ConfigSource;
import java.time.Duration;

/**
 * How submissions (players' heartbeats, the internal API's reports) are batched into Redis round
 * trips. Each key's default and range: docs/configuration.md, section "Write batching".
 *
 * @param maxEvents a batch is sent when it holds this many events ({@code heartbeat.batch.max.events})
 * @param maxDelay or when its first submission waited this long ({@code heartbeat.batch.max.delay})
 * @param eager or at once when Redis has no batch in flight ({@code heartbeat.batch.eager}); false
 *     makes every batch wait out {@code maxDelay} (fewer, fuller round trips at low load, more latency)
 * @param queueCapacity submissions waiting for a batch; beyond it new ones are refused ({@code heartbeat.queue.max})
 * @param maxInFlight batches awaiting Redis at once; beyond it the batcher waits ({@code heartbeat.max.inflight})
 * @param inFlightWait how long the batcher waits for a free slot before failing a batch ({@code heartbeat.inflight.wait})
 * @param linger at low load, how long an eager batch may wait for company when nothing is in flight
 *     ({@code heartbeat.batch.linger}; zero = off): it waits only while submissions arrive faster
 *     than one per {@code linger}, so the wait is expected to save a round trip
 * @param lingerHeartbeats a lingering batch leaves as soon as this many submissions joined it
 *     ({@code heartbeat.batch.linger.heartbeats}; at most {@code queueCapacity}, or it could never fill)
 */
public record BatcherConfig(int maxEvents, Duration maxDelay, boolean eager, int queueCapacity, int maxInFlight,
    Duration inFlightWait, Duration linger, int lingerHeartbeats) {

  /** A lingering batch can hold no more than the queue: {@code lingerHeartbeats} above it counts as the queue's size. */
  public BatcherConfig {
    lingerHeartbeats = Math.min(lingerHeartbeats, queueCapacity);
  }

  /** Without lingering: an eager batch leaves as soon as nothing is in flight. */
  public BatcherConfig(int maxEvents, Duration maxDelay, boolean eager, int queueCapacity, int maxInFlight,
      Duration inFlightWait) {
    this(maxEvents, maxDelay, eager, queueCapacity, maxInFlight, inFlightWait, Duration.ZERO, 1);
  }

  public static BatcherConfig from(ConfigSource c) {
    return new BatcherConfig(
        BatchSettings.BATCH_MAX_EVENTS.read(c),
        BatchSettings.BATCH_MAX_DELAY.read(c),
        BatchSettings.BATCH_EAGER.read(c),
        BatchSettings.QUEUE_MAX.read(c),
        BatchSettings.MAX_INFLIGHT.read(c),
        BatchSettings.INFLIGHT_WAIT.read(c),
        BatchSettings.BATCH_LINGER.read(c),
        BatchSettings.BATCH_LINGER_HEARTBEATS.read(c));
  }
}
