package io.playline.core.config;

import java.time.Duration;

/**
 * The first-today outbox: where a user's first check of the day leaves its event until Kafka acked
 * it, and how stragglers are swept. Immutable; validated on construction against the ranges of
 * {@link FirstTodaySettings}. Every field names its config key; defaults and ranges are in
 * docs/configuration.md.
 *
 * @param shards outbox keys; the day's bitmap shard {@code s} shares a hash tag (and so a Redis
 *     Cluster slot) with outbox {@code s mod shards} ({@code first.today.outbox.shards}, at most
 *     {@code first.today.shards}); every sweep reads each of them once
 * @param capacity events all outboxes hold together, split evenly ({@code first.today.outbox.capacity}):
 *     a first check that finds its outbox full still counts the user, but its event is published
 *     from memory only, at most once (counted as {@code playline.first.today.outbox.full})
 * @param age how long an event may wait for the node that counted it before any node's sweep sends it
 *     ({@code first.today.outbox.age}); longer than {@code kafka.producer.delivery.timeout} keeps a
 *     slow but successful send from being repeated
 * @param sweepInterval how often each process sweeps the outboxes ({@code first.today.outbox.sweep.interval})
 * @param sweepBatch events one sweep claims per outbox ({@code first.today.outbox.sweep.batch})
 */
public record FirstTodayOutboxConfig(int shards, int capacity, Duration age, Duration sweepInterval, int sweepBatch) {

  public FirstTodayOutboxConfig {
    FirstTodaySettings.OUTBOX_SHARDS.check(shards);
    FirstTodaySettings.OUTBOX_CAPACITY.check(capacity);
    ConfigException.check(capacity >= shards, FirstTodaySettings.OUTBOX_CAPACITY.key(), capacity,
        "at least first.today.outbox.shards " + shards);
    FirstTodaySettings.OUTBOX_AGE.check(age);
    FirstTodaySettings.OUTBOX_SWEEP_INTERVAL.check(sweepInterval);
    FirstTodaySettings.OUTBOX_SWEEP_BATCH.check(sweepBatch);
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
