package io.playline.node.push;

import io.playline.core.config.Setting;
import io.playline.core.config.SettingsCatalogue;
import java.time.Duration;
import java.util.List;

/**
 * How progress is pushed to a user's other devices: read by every node that writes (player edge and
 * internal API) for publishing, and by the player edge for delivering.
 */
public final class PushSettings {
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

  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("Progress push",
      List.of(SYNC_COALESCE_WINDOW, PUSH_LOOKUP_CACHE, PUSH_LOOKUP_ALONE_CACHE, PUSH_REGISTRY_TTL));

  private PushSettings() {}
}
