package io.playline.gateway.heartbeat;

import io.playline.core.config.ConfigSource;
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
 */
public record BatcherConfig(int maxEvents, Duration maxDelay, boolean eager, int queueCapacity, int maxInFlight,
    Duration inFlightWait) {
  public static BatcherConfig from(ConfigSource c) {
    return new BatcherConfig(
        c.intValue("heartbeat.batch.max.events", 512, 1, 100_000),
        c.duration("heartbeat.batch.max.delay", Duration.ofMillis(2), Duration.ZERO, Duration.ofSeconds(1)),
        c.bool("heartbeat.batch.eager", true),
        c.intValue("heartbeat.queue.max", 65_536, 1, 10_000_000),
        c.intValue("heartbeat.max.inflight", 8, 1, 1024),
        c.duration("heartbeat.inflight.wait", Duration.ofSeconds(5), Duration.ofMillis(10), Duration.ofMinutes(1)));
  }
}
