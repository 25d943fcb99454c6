package io.playline.gateway.push;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session registry as one Redis hash per user ({@link PushKeys#nodes}): field = node id,
 * value = the time (epoch ms) the entry expires unless refreshed. The key's TTL is pushed forward
 * on every add, so a user nobody holds disappears; an entry whose time passed (its node died
 * without removing it) is ignored by lookups and pruned lazily by them.
 *
 * <p>Thread-safe; all calls go asynchronously through the process's shared Redis connection,
 * in call order.
 */
public final class RedisSessionRegistry implements SessionRegistry {
  private static final Logger log = LoggerFactory.getLogger(RedisSessionRegistry.class);

  private final RedisClusterAsyncCommands<byte[], byte[]> redis;
  private final PushKeys keys;
  private final String nodeId;
  private final byte[] node;
  private final long ttlMs;
  private final Clock clock;
  private final long lookupCacheMs;
  private final java.util.concurrent.ConcurrentHashMap<Long, CachedLookup> lookups =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** Users whose lookups are cached at most; beyond it expired entries (or all) are dropped. */
  private static final int MAX_CACHED_LOOKUPS = 100_000;

  private record CachedLookup(long expiresAtMs, CompletionStage<List<String>> nodes) {}
  private final PushMetrics metrics;
  private volatile NodeChannels announcer = NodeChannels.NONE;

  public RedisSessionRegistry(RedisClusterAsyncCommands<byte[], byte[]> redis, PushKeys keys, String nodeId,
      Duration ttl, Clock clock, PushMetrics metrics) {
    this(redis, keys, nodeId, ttl, Duration.ZERO, clock, metrics);
  }

  /** As above, reusing each user's lookup for {@code lookupCache} (bounded to a fixed number of users). */
  public RedisSessionRegistry(RedisClusterAsyncCommands<byte[], byte[]> redis, PushKeys keys, String nodeId,
      Duration ttl, Duration lookupCache, Clock clock, PushMetrics metrics) {
    this.lookupCacheMs = lookupCache.toMillis();
    this.redis = redis;
    this.keys = keys;
    this.nodeId = nodeId;
    this.node = PushKeys.bytes(nodeId);
    this.ttlMs = ttl.toMillis();
    this.clock = clock;
    this.metrics = metrics;
  }

  /**
   * Where this node announces that it joined a user's registry ({@link JoinNotice}) to the other
   * nodes holding the user; until set (the channels start after this registry), nobody is told.
   */
  public void announceJoinsThrough(NodeChannels channels) {
    this.announcer = channels;
  }

  @Override
  public void add(long uid) {
    byte[] key = keys.nodes(uid);
    long expiresAt = clock.millis() + ttlMs;
    metrics.registryCommandsSent(2);
    redis.hset(key, node, PushKeys.bytes(Long.toString(expiresAt))).whenComplete((created, error) -> {
      if (error != null) {
        failed("Adding", uid, error);
      } else if (Boolean.TRUE.equals(created)) {
        announceJoin(uid);
      }
    });
    redis.pexpire(key, ttlMs).whenComplete((set, error) -> {
      if (error != null) {
        failed("Expiring", uid, error);
      }
    });
  }

  /**
   * Tells the other nodes holding {@code uid} that this node now holds it too: their cached lookups
   * miss this node until they drop them. Read after this node's entry was written, so a node whose
   * lookup came earlier is listed here and told; one whose lookup comes later sees the entry.
   */
  private void announceJoin(long uid) {
    NodeChannels channels = announcer;
    if (channels == NodeChannels.NONE) {
      return;
    }
    fetch(uid).whenComplete((others, error) -> {
      if (error != null) {
        metrics.lookupError();
        log.warn("Reading user {}'s push registry to announce this node's join failed: {}", uid, error.toString());
        return;
      }
      if (others.isEmpty()) {
        return;
      }
      byte[] notice = new JoinNotice(uid, nodeId).encode();
      for (String other : others) {
        metrics.joinAnnounced();
        channels.publish(other, notice).whenComplete((ok, publishError) -> {
          if (publishError != null) {
            metrics.publishError();
            log.warn("Announcing user {}'s join to node {} failed: {}", uid, other, publishError.toString());
          }
        });
      }
    });
  }

  /** Drops the cached lookup of {@code uid}: the next change reads the registry again. */
  @Override
  public void joined(long uid, String joinedNode) {
    metrics.joinReceived();
    lookups.remove(uid);
  }

  @Override
  public CompletionStage<Void> remove(long uid) {
    metrics.registryCommandsSent(1);
    return redis.hdel(keys.nodes(uid), node).handle((removed, error) -> {
      if (error != null) {
        failed("Removing", uid, error);
      }
      return null;
    });
  }

  @Override
  public CompletionStage<List<String>> otherNodes(long uid) {
    if (lookupCacheMs == 0) {
      return fetch(uid);
    }
    long now = clock.millis();
    CachedLookup cached = lookups.get(uid);
    if (cached != null && cached.expiresAtMs() > now) {
      return cached.nodes();
    }
    if (lookups.size() >= MAX_CACHED_LOOKUPS) {
      lookups.values().removeIf(c -> c.expiresAtMs() <= now);
      if (lookups.size() >= MAX_CACHED_LOOKUPS) {
        lookups.clear();
      }
    }
    CompletionStage<List<String>> nodes = fetch(uid);
    lookups.put(uid, new CachedLookup(now + lookupCacheMs, nodes));
    nodes.whenComplete((ok, error) -> {
      if (error != null) {
        lookups.remove(uid);
      }
    });
    return nodes;
  }

  private CompletionStage<List<String>> fetch(long uid) {
    byte[] key = keys.nodes(uid);
    metrics.lookupSent();
    return redis.hgetall(key).thenApply(entries -> live(key, entries));
  }

  private List<String> live(byte[] key, Map<byte[], byte[]> entries) {
    long now = clock.millis();
    List<String> nodes = new ArrayList<>(entries.size());
    List<byte[]> expired = new ArrayList<>(0);
    for (Map.Entry<byte[], byte[]> e : entries.entrySet()) {
      if (expiresAt(e.getValue()) <= now) {
        expired.add(e.getKey());
        continue;
      }
      String holder = new String(e.getKey(), StandardCharsets.UTF_8);
      if (!holder.equals(nodeId)) {
        nodes.add(holder);
      }
    }
    if (!expired.isEmpty()) {
      // A node that died left its entries behind; whoever looks first prunes them.
      metrics.expired(expired.size());
      metrics.registryCommandsSent(1);
      redis.hdel(key, expired.toArray(new byte[0][])).whenComplete((n, error) -> {
        if (error != null) {
          log.debug("Pruning expired push registry entries failed: {}", error.toString());
        }
      });
    }
    return nodes;
  }

  private static long expiresAt(byte[] value) {
    try {
      return Long.parseLong(new String(value, StandardCharsets.US_ASCII));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private void failed(String what, long uid, Throwable error) {
    metrics.registryError();
    log.warn("{} push registry entry of user {} failed: {}", what, uid, error.toString());
  }
}
