package io.playline.core.config;

import static io.playline.core.config.Setting.derived;

import java.time.Duration;
import java.time.ZoneId;
import java.util.List;

/** history-core's keys of the first-today flag: its calendar, its bitmaps and the outbox its events wait in. */
public final class FirstTodaySettings {
  public static final Setting<ZoneId> FLAG_ZONE = Setting.zone("flag.zone", ZoneId.of("UTC"),
      "the zone whose calendar day first-today counts");
  public static final Setting<Integer> SHARDS = Setting.intValue("first.today.shards", 1000, 1, 100_000,
      "first-today key shards per day (`uid mod shards`)");
  public static final Setting<Long> BITMAP_MAX_UID = Setting.longValue("first.today.bitmap.max.uid", 0xFFFF_FFFFL, 0,
      Long.MAX_VALUE, "uids up to it are counted in bitmaps split into 8 KiB chunks "
          + "(`<prefix>ft:{ft<o>}:<day>:<shard>[:<chunk>]`, bit `(uid / shards) mod 2¹⁶`), so a dense range of uids "
          + "costs about a bit each and a lone uid at most one chunk; uids above it are members of a set per shard "
          + "(`...:<shard>:u`, about 60 bytes each). Any uid in 1..2⁶³−1 is accepted, and memory follows the users "
          + "counted that day, never the largest uid. Changing it mid-day counts the moved users once more that day "
          + "(consumers de-duplicate by (uid, day))");
  public static final Setting<Integer> OUTBOX_SHARDS = Setting.intValue("first.today.outbox.shards",
      derived("16 (`first.today.shards` if fewer)"), 1, 1024, "Redis outboxes that keep first-today events until "
          + "Kafka acked them. Bitmap shard `s` of any day is `<prefix>ft:{ft<o>}:<yyyymmdd>:<s>` with "
          + "`o = s mod outbox.shards`, next to its outbox `<prefix>ft:{ft<o>}:outbox` (one hash tag: one Redis "
          + "Cluster slot); each sweep reads every outbox once. See [first-today delivery](#first-today-delivery)")
      .rangeNote("≤ `first.today.shards`");
  public static final Setting<Integer> OUTBOX_CAPACITY = Setting.intValue("first.today.outbox.capacity", 1_000_000, 1,
      100_000_000, "events all outboxes hold together (split evenly; about 100 bytes each). A user counted while "
          + "the outbox is full is still counted (the ack says `first_today`), but the event is published from "
          + "memory only, at most once: counted as `playline_first_today_outbox_full_total` and logged");
  public static final Setting<Duration> OUTBOX_AGE = Setting.duration("first.today.outbox.age", Duration.ofMinutes(2),
      Duration.ofSeconds(1), Duration.ofDays(1), "an event older than this that is still in its outbox (its node "
          + "died, its send failed, Kafka was down, its queue was full) is sent by the next sweep of any node. Keep "
          + "it above `kafka.producer.delivery.timeout`, or a slow send that succeeds is repeated");
  public static final Setting<Duration> OUTBOX_SWEEP_INTERVAL = Setting.duration("first.today.outbox.sweep.interval",
      Duration.ofSeconds(30), Duration.ofMillis(100), Duration.ofHours(1),
      "how often every gateway and API process sweeps the outboxes");
  public static final Setting<Integer> OUTBOX_SWEEP_BATCH = Setting.intValue("first.today.outbox.sweep.batch", 500, 1,
      100_000, "how many events one sweep claims per outbox");
  public static final Setting<Integer> QUEUE_CAPACITY = Setting.intValue("first.today.queue.capacity", 10_000, 1,
      10_000_000, "events waiting in memory for the node's publisher thread; past it an event waits in its outbox "
          + "for a sweep (`playline_first_today_deferred_total`)");

  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("First-today", List.of(
      FLAG_ZONE, SHARDS, BITMAP_MAX_UID, OUTBOX_SHARDS, OUTBOX_CAPACITY, OUTBOX_AGE, OUTBOX_SWEEP_INTERVAL,
      OUTBOX_SWEEP_BATCH, QUEUE_CAPACITY));

  private FirstTodaySettings() {}
}
