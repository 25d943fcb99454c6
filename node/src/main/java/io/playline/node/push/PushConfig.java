package io.playline.node.push;

import io.playline.core.config.ConfigSource;
import java.time.Duration;

/**
 * How progress is pushed to a user's other devices. Each key's default and range:
 * docs/configuration.md.
 *
 * @param coalesceWindow at most one {@code ProgressSync} per item per receiving connection per
 *     window; the first change after a quiet window is sent at once, later ones in the window are
 *     folded into one sent at the window's end ({@code sync.coalesce.window}; 0 = no coalescing)
 * @param lookupCache how long a node reuses its answer to "which other nodes hold this user?"
 *     ({@code push.lookup.cache}; 0 = ask Redis on every change): a user who moves progress on
 *     every heartbeat costs one registry read per window instead of one per heartbeat. A node that
 *     joins a user's registry tells the nodes already listed ({@link JoinNotice}), which drop their
 *     answer, so the window only bounds how long a node that left (or died) is still published to,
 *     and how late a join whose notice was lost (Redis pub/sub is at-most-once) is seen
 * @param aloneCache how long a node reuses the answer "no other node holds this user" for a user it
 *     holds ({@code push.lookup.alone.cache}; 0 = as {@code lookupCache}): read when the node
 *     joins the user's registry, dropped by a join notice and by every re-subscription of the node's
 *     channel, so a one-device user costs no registry read per change. For users the node does not
 *     hold (pushes from backends) it hears of no joins, so their answers are kept {@code lookupCache}
 * @param registryTtl how long a node's entry in a user's hash of the user-node registry lives without a
 *     refresh ({@code push.registry.ttl}); refreshed lazily, at most every third of it, when a
 *     connection of the user sends a heartbeat, so it must exceed twice {@code idle.timeout}. Every
 *     node of a deployment must use the same value.
 */
public record PushConfig(Duration coalesceWindow, Duration registryTtl, Duration lookupCache, Duration aloneCache) {

  /** Without a lookup cache. */
  public PushConfig(Duration coalesceWindow, Duration registryTtl) {
    this(coalesceWindow, registryTtl, Duration.ZERO, Duration.ZERO);
  }

  public PushConfig {
    PushSettings.SYNC_COALESCE_WINDOW.check(coalesceWindow);
    PushSettings.PUSH_REGISTRY_TTL.check(registryTtl);
    PushSettings.PUSH_LOOKUP_CACHE.check(lookupCache);
    PushSettings.PUSH_LOOKUP_ALONE_CACHE.check(aloneCache);
  }

  /** The interval after which a user's registry entry is refreshed again on activity. */
  public Duration refreshInterval() {
    return Duration.ofMillis(refreshIntervalMs());
  }

  /** {@link #refreshInterval()} in ms: plain arithmetic, for the per-heartbeat path ({@code Duration.dividedBy} allocates BigDecimals). */
  public long refreshIntervalMs() {
    return registryTtl.toMillis() / 3;
  }

  /** Reads {@code sync.coalesce.window} and {@code push.registry.ttl}. */
  public static PushConfig from(ConfigSource c) {
    return new PushConfig(
        PushSettings.SYNC_COALESCE_WINDOW.read(c),
        PushSettings.PUSH_REGISTRY_TTL.read(c),
        PushSettings.PUSH_LOOKUP_CACHE.read(c),
        PushSettings.PUSH_LOOKUP_ALONE_CACHE.read(c));
  }
}
