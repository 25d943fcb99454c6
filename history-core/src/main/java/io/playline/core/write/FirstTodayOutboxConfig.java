package io.playline.core.write;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.FirstTodaySettings;
import java.time.Duration;

/**
 * The first-today outbox: where a user's first check of the day leaves its event until Kafka acked
 * it, and how stragglers are swept. Immutable; validated on construction. Every field names its
 * config key and default.
 *
 * @param shards outbox keys; the day's bitmap shard {@code s} shares a hash tag (and so a Redis
 *     Cluster slot) with outbox {@code s mod shards} ({@code first.today.outbox.shards}, 16 or
 *     first.today.shards if fewer;
 *     1..1024, at most {@code first.today.shards}); every sweep reads each of them once
 * @param capacity events all outboxes hold together, split evenly ({@code first.today.outbox.capacity},
 *     1000000): a first check that finds its outbox full still counts the user, but its event is
 *     published from memory only, at most once (counted as {@code playline.first.today.outbox.full})
 * @param age how long an event may wait for the node that counted it before any node's sweep sends it
 *     ({@code first.today.outbox.age}, 2m; 1s..1d); longer than {@code kafka.producer.delivery.timeout}
 *     keeps a slow but successful send from being repeated
 * @param sweepInterval how often each process sweeps the outboxes ({@code first.today.outbox.sweep.interval},
 *     30s; 100ms..1h)
 * @param sweepBatch events one sweep claims per outbox ({@code first.today.outbox.sweep.batch}, 500; 1..100000)
 */
public record FirstTodayOutboxConfig(int shards, int capacity, Duration age, Duration sweepInterval, int sweepBatch) {

  public FirstTodayOutboxConfig {
    if (shards < 1 || shards > 1024) {
      throw new ConfigException("first.today.outbox.shards: " + shards + " (expected: 1..1024)");
    }
    if (capacity < shards) {
      throw new ConfigException("first.today.outbox.capacity: " + capacity
          + " (expected: at least first.today.outbox.shards " + shards + ")");
    }
    if (age.isNegative() || age.isZero() || sweepInterval.isNegative() || sweepInterval.isZero() || sweepBatch < 1) {
      throw new ConfigException("first.today.outbox.age " + age + ", .sweep.interval " + sweepInterval
          + ", .sweep.batch " + sweepBatch + " (expected: all > 0)");
    }
  }

  /** Reads the settings from {@code c}, validating each range, for {@code bitmapShards} first-today bitmaps. */
  public static FirstTodayOutboxConfig from(ConfigSource c, int bitmapShards) {
    return new FirstTodayOutboxConfig(
        FirstTodaySettings.OUTBOX_SHARDS.read(c, Math.min(16, bitmapShards)),
        FirstTodaySettings.OUTBOX_CAPACITY.read(c),
        FirstTodaySettings.OUTBOX_AGE.read(c),
        FirstTodaySettings.OUTBOX_SWEEP_INTERVAL.read(c),
        FirstTodaySettings.OUTBOX_SWEEP_BATCH.read(c));
  }

  /** The capacity of one outbox key: {@link #capacity()} split over {@link #shards()}, rounded up. */
  public int capacityPerShard() {
    return (capacity + shards - 1) / shards;
  }
}
