package io.playline.node.write;

import io.playline.core.config.Setting;
import io.playline.core.config.SettingsCatalogue;
import java.time.Duration;
import java.util.List;

/**
 * How a node batches the writes of many connections (and of the internal API's reports) into Redis
 * round trips ({@link WriteBatcher}).
 */
public final class BatchSettings {
  public static final Setting<Integer> BATCH_MAX_EVENTS = Setting.intValue("heartbeat.batch.max.events", 512, 1,
      100_000, "a batch is sent when it holds this many events");
  public static final Setting<Duration> BATCH_MAX_DELAY = Setting.duration("heartbeat.batch.max.delay",
      Duration.ofMillis(2), Duration.ZERO, Duration.ofSeconds(1), "or when its first heartbeat waited this long");
  public static final Setting<Boolean> BATCH_EAGER = Setting.bool("heartbeat.batch.eager", true, "a batch is also "
      + "sent at once when Redis has no batch in flight (group commit: batches grow only while a round trip is out); "
      + "`false` makes every batch wait out the delay (fewer round trips at low load, ~2 ms more latency)");
  public static final Setting<Duration> BATCH_LINGER = Setting.duration("heartbeat.batch.linger",
      Duration.ofMillis(5), Duration.ZERO, Duration.ofSeconds(1), "at low load, how long an eager batch may wait for "
          + "more heartbeats when Redis has no batch in flight; it waits only while heartbeats arrive faster than one "
          + "per linger (so waiting saves a round trip), and leaves early once `heartbeat.batch.linger.heartbeats` "
          + "joined. Trades up to this much ack latency for fewer Redis round trips and thread wake-ups on a quiet "
          + "node; `0` sends at once");
  public static final Setting<Integer> BATCH_LINGER_HEARTBEATS = Setting.intValue("heartbeat.batch.linger.heartbeats",
      8, 1, 100_000, "a lingering batch leaves as soon as it holds this many heartbeats");
  public static final Setting<Integer> QUEUE_MAX = Setting.intValue("heartbeat.queue.max", 65_536, 1, 10_000_000,
      "heartbeats waiting for a batch; past it `UNAVAILABLE` (\"server busy; resend\"), the connection stays open");
  public static final Setting<Integer> MAX_INFLIGHT = Setting.intValue("heartbeat.max.inflight", 8, 1, 1024,
      "batches awaiting Redis at once; further heartbeats queue");
  public static final Setting<Duration> INFLIGHT_WAIT = Setting.duration("heartbeat.inflight.wait",
      Duration.ofSeconds(5), Duration.ofMillis(10), Duration.ofMinutes(1),
      "a batch that waited this long for a slot fails with `UNAVAILABLE`");

  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("Write batching", List.of(
      BATCH_MAX_EVENTS, BATCH_MAX_DELAY, BATCH_EAGER, BATCH_LINGER, BATCH_LINGER_HEARTBEATS, QUEUE_MAX, MAX_INFLIGHT,
      INFLIGHT_WAIT));

  private BatchSettings() {}
}
