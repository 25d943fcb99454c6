package io.playline.gateway.config;

import io.playline.core.config.Setting;
import io.playline.core.config.SettingsCatalogue;
import java.time.Duration;
import java.util.List;

/** How the gateway batches heartbeats into Redis round trips, and pushes progress to a user's other devices. */
public final class HeartbeatSettings {
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
  public static final Setting<Duration> SYNC_COALESCE_WINDOW = Setting.duration("sync.coalesce.window",
      Duration.ofSeconds(1), Duration.ZERO, Duration.ofMinutes(1), "at most one `ProgressSync` per item per "
          + "receiving connection per window (first change at once, the latest of a burst at the window's end); "
          + "0 = every change");
  public static final Setting<Duration> PUSH_LOOKUP_CACHE = Setting.duration("push.lookup.cache",
      Duration.ofSeconds(30), Duration.ZERO, Duration.ofMinutes(10), "how long a node reuses \"which other nodes "
          + "hold this user\" (one registry read per user per window, not per heartbeat). A node joining a user's "
          + "registry tells the nodes already there (`playline_push_registry_joins_total`), which drop their answer "
          + "at once; the window bounds how long a node that left is still published to, and how late a join whose "
          + "notice was lost is seen");
  public static final Setting<Duration> PUSH_LOOKUP_ALONE_CACHE = Setting.duration("push.lookup.alone.cache",
      Duration.ofMinutes(10), Duration.ZERO, Duration.ofHours(1), "how long a node trusts the answer \"no other node "
          + "holds this user\" for a user it holds (most users: one device). Read when the node joins the user's "
          + "registry; dropped at once by a join notice and by every re-subscription of the node's push channel "
          + "(notices may have been lost while it was down), so a one-device user costs no registry read per change; "
          + "the window only bounds a notice lost without a reconnect. `0` = as `push.lookup.cache`");
  public static final Setting<Duration> PUSH_REGISTRY_TTL = Setting.duration("push.registry.ttl",
      Duration.ofMinutes(10), Duration.ofSeconds(10), Duration.ofDays(1), "life of a node's entry in a user's push "
          + "registry (`<prefix>push:{uid}:nodes`), refreshed lazily on heartbeats; same on every node")
      .rangeNote("≥ 2 × `idle.timeout`");

  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("Heartbeat batching and progress push",
      List.of(BATCH_MAX_EVENTS, BATCH_MAX_DELAY, BATCH_EAGER, BATCH_LINGER, BATCH_LINGER_HEARTBEATS, QUEUE_MAX,
          MAX_INFLIGHT, INFLIGHT_WAIT, SYNC_COALESCE_WINDOW, PUSH_LOOKUP_CACHE, PUSH_LOOKUP_ALONE_CACHE,
          PUSH_REGISTRY_TTL));

  private HeartbeatSettings() {}
}
