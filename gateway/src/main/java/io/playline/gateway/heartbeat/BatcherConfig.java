package io.playline.gateway.heartbeat;

import io.playline.core.config.ConfigSource;
import io.playline.gateway.config.HeartbeatSettings;
import java.time.Duration;

/**
 * How heartbeats are batched into Redis round trips.
 *
 * @param maxEvents a batch is sent when it holds this many events ({@code heartbeat.batch.max.events}, 512)
 * @param maxDelay or when its first heartbeat waited this long ({@code heartbeat.batch.max.delay}, 2ms)
 * @param eager or at once when Redis has no batch in flight ({@code heartbeat.batch.eager}, true); false
 *     makes every batch wait out {@code maxDelay} (fewer, fuller round trips at low load, more latency)
 * @param queueCapacity heartbeats waiting for a batch; beyond it new ones are refused ({@code heartbeat.queue.max}, 65536)
 * @param maxInFlight batches awaiting Redis at once; beyond it the batcher waits ({@code heartbeat.max.inflight}, 8)
 * @param inFlightWait how long the batcher waits for a free slot before failing a batch ({@code heartbeat.inflight.wait}, 5s)
 * @param linger at low load, how long an eager batch may wait for company when nothing is in flight
 *     ({@code heartbeat.batch.linger}, 0 = off): it waits only while heartbeats arrive faster than
 *     one per {@code linger}, so the wait is expected to save a round trip
 * @param lingerHeartbeats a lingering batch leaves as soon as this many heartbeats joined it
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
        HeartbeatSettings.BATCH_MAX_EVENTS.read(c),
        HeartbeatSettings.BATCH_MAX_DELAY.read(c),
        HeartbeatSettings.BATCH_EAGER.read(c),
        HeartbeatSettings.QUEUE_MAX.read(c),
        HeartbeatSettings.MAX_INFLIGHT.read(c),
        HeartbeatSettings.INFLIGHT_WAIT.read(c),
        HeartbeatSettings.BATCH_LINGER.read(c),
        HeartbeatSettings.BATCH_LINGER_HEARTBEATS.read(c));
  }
}
