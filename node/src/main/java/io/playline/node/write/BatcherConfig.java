package io.playline.node.write;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import java.time.Duration;
import java.util.List;

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
 * @param ackBudget how long a submission may take from read to ack when waiting for company saves
 *     round trips ({@code heartbeat.ack.budget}; zero = batches never wait): see {@link AckBudget}
 * @param enoughHeartbeats a batch waiting within the budget leaves as soon as this many submissions
 *     joined it ({@code heartbeat.batch.enough.heartbeats}; at most {@code queueCapacity}, or it could never fill)
 */
public record BatcherConfig(int maxEvents, Duration maxDelay, boolean eager, int queueCapacity, int maxInFlight,
    Duration inFlightWait, Duration ackBudget, int enoughHeartbeats) {

  /** A waiting batch can hold no more than the queue: {@code enoughHeartbeats} above it counts as the queue's size. */
  public BatcherConfig {
    enoughHeartbeats = Math.min(enoughHeartbeats, queueCapacity);
  }

  /** Without an ack budget: an eager batch leaves as soon as nothing is in flight. */
  public BatcherConfig(int maxEvents, Duration maxDelay, boolean eager, int queueCapacity, int maxInFlight,
      Duration inFlightWait) {
    this(maxEvents, maxDelay, eager, queueCapacity, maxInFlight, inFlightWait, Duration.ZERO, 1);
  }

  /**
   * @throws ConfigException when a retired key is set: it would otherwise be ignored silently and
   *     the node would batch differently from what its operator asked for
   */
  public static BatcherConfig from(ConfigSource c) {
    for (String retired : List.of("heartbeat.batch.linger", "heartbeat.batch.linger.heartbeats")) {
      if (c.raw(retired).isPresent()) {
        throw new ConfigException(retired + " was replaced by heartbeat.ack.budget (how long a heartbeat may take "
            + "from read to ack; 0 = batches never wait) and heartbeat.batch.enough.heartbeats; remove it");
      }
    }
    return new BatcherConfig(
        BatchSettings.BATCH_MAX_EVENTS.read(c),
        BatchSettings.BATCH_MAX_DELAY.read(c),
        BatchSettings.BATCH_EAGER.read(c),
        BatchSettings.QUEUE_MAX.read(c),
        BatchSettings.MAX_INFLIGHT.read(c),
        BatchSettings.INFLIGHT_WAIT.read(c),
        BatchSettings.ACK_BUDGET.read(c),
        BatchSettings.BATCH_ENOUGH.read(c));
  }
}
