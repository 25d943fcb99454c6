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
  public static final Setting<Duration> ACK_BUDGET = Setting.duration("heartbeat.ack.budget", Duration.ofMillis(25),
      Duration.ZERO, Duration.ofSeconds(10), "how long a heartbeat may take from read to ack when waiting buys fewer "
          + "Redis round trips: while heartbeats arrive faster than one per wait, a batch waits for company (whether or "
          + "not a round trip is out), and leaves early once `heartbeat.batch.enough.heartbeats` or "
          + "`heartbeat.batch.max.events` joined. The wait steers itself from the acks: one batch whose oldest "
          + "heartbeat took over four fifths of the budget cuts it by a quarter (once per spell: batches read before that "
          + "cut do not cut again), one within lets it grow, up to four "
          + "fifths of the budget (gauge `playline.heartbeat.batch.wait`). A longer budget means fuller batches: "
          + "fewer round trips and less CPU per heartbeat in Redis and in the node, for ack latency the player never "
          + "waits on; `0` sends each batch as soon as it may (lowest latency, most round trips below peak). At peak "
          + "nothing waits: batches fill while a round trip is out. Replaces `heartbeat.batch.linger` (refused now)");
  public static final Setting<Integer> BATCH_ENOUGH = Setting.intValue("heartbeat.batch.enough.heartbeats", 64, 1,
      100_000, "a batch waiting within `heartbeat.ack.budget` leaves as soon as it holds this many heartbeats "
          + "(a round trip shared by this many costs each little; more would only add latency)");
  public static final Setting<Integer> QUEUE_MAX = Setting.intValue("heartbeat.queue.max", 65_536, 1, 10_000_000,
      "heartbeats waiting for a batch; past it `UNAVAILABLE` (\"server busy; resend\"), the connection stays open");
  public static final Setting<Integer> MAX_INFLIGHT = Setting.intValue("heartbeat.max.inflight", 8, 1, 1024,
      "batches awaiting Redis at once; further heartbeats queue");
  public static final Setting<Duration> INFLIGHT_WAIT = Setting.duration("heartbeat.inflight.wait",
      Duration.ofSeconds(5), Duration.ofMillis(10), Duration.ofMinutes(1),
      "a batch that waited this long for a slot fails with `UNAVAILABLE`");

  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("Write batching", List.of(
      BATCH_MAX_EVENTS, BATCH_MAX_DELAY, BATCH_EAGER, ACK_BUDGET, BATCH_ENOUGH, QUEUE_MAX, MAX_INFLIGHT,
      INFLIGHT_WAIT));

  private BatchSettings() {}
}
