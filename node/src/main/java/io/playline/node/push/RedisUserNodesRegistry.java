package io.playline.node.push;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongPredicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The user-nodes registry as one Redis hash per user ({@link PushKeys#nodes}): field = node id,
 * value = the time (epoch ms) the entry expires unless refreshed. The key's TTL is pushed forward
 * on every add, so a user nobody holds disappears; an entry whose time passed (its node died
 * without removing it) is ignored by lookups and pruned lazily by them.
 *
 * <p>Thread-safe; all calls go asynchronously through the process's shared Redis connection,
 * in call order.
 */
public final class RedisUserNodesRegistry implements UserNodesRegistry {
  private static final Logger log = LoggerFactory.getLogger(RedisUserNodesRegistry.class);

  private final RedisClusterAsyncCommands<byte[], byte[]> redis;
  private final PushKeys keys;
  private final String nodeId;
  private final byte[] node;
  private final long ttlMs;
  private final Clock clock;
  private final long lookupCacheMs;
  private final long aloneCacheMs;
  private final ConcurrentHashMap<Long, CachedLookup> lookups = new ConcurrentHashMap<>();

  /**
   * Users whose lookups are cached at most (~100 bytes each); beyond it expired entries (or all) are
   * dropped. A held user's entry leaves with its last connection on this node; others expire.
   */
  private static final int MAX_CACHED_LOOKUPS = 500_000;

  /** A lookup's answer (pending until Redis replies), reused until {@code expiresAtMs}. */
  private record CachedLookup(long expiresAtMs, CompletableFuture<List<String>> nodes) {}

  private final PushMetrics metrics;
  private volatile NodeChannels announcer = NodeChannels.NONE;
  private volatile RegistryListener listener = RegistryListener.NONE;
  /** Whether this node holds a connection of the user (so it is in the user's registry and hears of joins). */
  private volatile LongPredicate holds = uid -> false;
  /** Whether {@link #holds} was set: until then no answer counts as one for a held user. */
  private volatile boolean holdersKnown;

  public RedisUserNodesRegistry(RedisClusterAsyncCommands<byte[], byte[]> redis, PushKeys keys, String nodeId,
      Duration ttl, Clock clock, PushMetrics metrics) {
    this(redis, keys, nodeId, ttl, Duration.ZERO, Duration.ZERO, clock, metrics);
  }

  /**
   * As above, reusing a user's lookup for {@code lookupCache} when it lists other nodes and for
   * {@code aloneCache} when it lists none (each 0 = not reused; bounded to a fixed number of users).
   */
  public RedisUserNodesRegistry(RedisClusterAsyncCommands<byte[], byte[]> redis, PushKeys keys, String nodeId,
      Duration ttl, Duration lookupCache, Duration aloneCache, Clock clock, PushMetrics metrics) {
    this.lookupCacheMs = lookupCache.toMillis();
    this.aloneCacheMs = aloneCache.toMillis();
    this.redis = redis;
    this.keys = keys;
    this.nodeId = nodeId;
    this.node = PushKeys.bytes(nodeId);
    this.ttlMs = ttl.toMillis();
    this.clock = clock;
    this.metrics = metrics;
  }

  /**
   * Tells this registry which users this node holds: only for them is "no other node" kept for the
   * alone window, since only a node in the user's registry is told when another node joins. Until
   * set, empty answers are kept as long as any other answer.
   */
  public void holdersFrom(LongPredicate holders) {
    this.holds = holders;
    this.holdersKnown = true;
  }

  /**
   * Where this node announces that it joined a user's registry ({@link JoinNotice}) to the other
   * nodes holding the user; until set (the channels start after this registry), nobody is told.
   */
  public void announceJoinsThrough(NodeChannels channels) {
    this.announcer = channels;
  }

  /** Tells {@code listener} the answer of every read of a user's registry and every join notice received. */
  public void reportTo(RegistryListener listener) {
    this.listener = listener;
  }

  /**
   * Writes (or refreshes) this node's entry. When the user has no live cached lookup, its answer is
   * read right after the entry is written and cached: a pending lookup is cached before the write,
   * so a join notice of a node that saw this entry always finds (and drops) it. When the entry is
   * new, the nodes read are told this node joined ({@link JoinNotice}).
   */
  @Override
  public void add(long uid) {
    byte[] key = keys.nodes(uid);
    long now = clock.millis();
    long expiresAt = now + ttlMs;
    CachedLookup seed = null;
    if (caching()) {
      CachedLookup cached = lookups.get(uid);
      if (cached == null || cached.expiresAtMs() <= now) {
        seed = pending(uid, now);
      }
    }
    CachedLookup seeded = seed;
    metrics.registryCommandsSent(2);
    CompletionStage<Boolean> written;
    try {
      written = redis.hset(key, node, PushKeys.bytes(Long.toString(expiresAt)));
    } catch (RuntimeException e) {
      written = CompletableFuture.failedFuture(e);
    }
    written.whenComplete((created, error) -> {
      if (error != null) {
        failed("Adding", uid, error);
        if (seeded != null) {
          settle(uid, seeded, null, error, false);
        }
        return;
      }
      boolean joined = Boolean.TRUE.equals(created) && announcer != NodeChannels.NONE;
      if (joined || seeded != null) {
        fetch(uid).whenComplete((others, fetchError) -> {
          if (seeded != null) {
            // add() is called for a user this node holds — or is registering, so holds() may not
            // see it yet when Redis answers first; a removal meanwhile drops the pending entry.
            settle(uid, seeded, others, fetchError, holdersKnown);
          }
          if (joined) {
            announceJoin(uid, others, fetchError);
          }
        });
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
   * miss this node until they drop them. {@code others} was read after this node's entry was
   * written, so a node whose lookup came earlier is listed here and told; one whose lookup comes
   * later sees the entry.
   */
  private void announceJoin(long uid, @Nullable List<String> others, @Nullable Throwable error) {
    NodeChannels channels = announcer;
    if (channels == NodeChannels.NONE) {
      return;
    }
    if (error != null || others == null) {
      metrics.lookupError();
      log.warn("Reading user {}'s push registry to announce this node's join failed: {}", uid, error);
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
  }

  /** Drops the cached lookup of {@code uid} (the next change reads the registry again) and tells the listener. */
  @Override
  public void joined(long uid, String joinedNode) {
    lookups.remove(uid);
    listener.otherNodeJoined(uid);
    metrics.joinReceived();
  }

  /**
   * This node's push channel was (re-)subscribed: join notices sent while it was not may be lost,
   * so every cached lookup is dropped.
   */
  @Override
  public void channelSubscribed() {
    metrics.channelSubscribed();
    int dropped = lookups.size();
    lookups.clear();
    if (dropped > 0) {
      log.info("Push channel re-subscribed: dropped {} cached registry lookups (join notices may have been missed)",
          dropped);
    }
  }

  @Override
  public CompletionStage<Void> remove(long uid) {
    lookups.remove(uid);
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
    if (!caching()) {
      return fetch(uid);
    }
    long now = clock.millis();
    CachedLookup cached = lookups.get(uid);
    if (cached != null && cached.expiresAtMs() > now) {
      return cached.nodes();
    }
    CachedLookup entry = pending(uid, now);
    fetch(uid).whenComplete((others, error) -> settle(uid, entry, others, error, holds.test(uid)));
    return entry.nodes();
  }

  private boolean caching() {
    return lookupCacheMs > 0 || aloneCacheMs > 0;
  }

  /** Caches a lookup of {@code uid} whose answer is still to come, in place of any earlier one. */
  private CachedLookup pending(long uid, long now) {
    if (lookups.size() >= MAX_CACHED_LOOKUPS) {
      lookups.values().removeIf(c -> c.expiresAtMs() <= now);
      if (lookups.size() >= MAX_CACHED_LOOKUPS) {
        lookups.clear();
      }
    }
    CachedLookup entry = new CachedLookup(now + Math.max(lookupCacheMs, aloneCacheMs), new CompletableFuture<>());
    lookups.put(uid, entry);
    return entry;
  }

  /**
   * Completes a pending lookup and keeps it for as long as its kind of answer may be reused,
   * unless a join notice (or a re-subscription) dropped it meanwhile: then it is not put back.
   * {@code held}: the user counts as held by this node, so "nobody else" is kept for the alone window.
   */
  private void settle(long uid, CachedLookup entry, @Nullable List<String> others, @Nullable Throwable error,
      boolean held) {
    if (error != null || others == null) {
      lookups.remove(uid, entry);
      entry.nodes().completeExceptionally(error != null ? error : new IllegalStateException("no answer"));
      return;
    }
    // "Nobody else" is trusted for long only for a user this node holds: it hears of every join.
    long keepMs = others.isEmpty() && aloneCacheMs > 0 && held ? aloneCacheMs : lookupCacheMs;
    if (keepMs > 0) {
      lookups.replace(uid, entry, new CachedLookup(clock.millis() + keepMs, entry.nodes()));
    } else {
      lookups.remove(uid, entry);
    }
    entry.nodes().complete(others);
  }

  private CompletionStage<List<String>> fetch(long uid) {
    byte[] key = keys.nodes(uid);
    metrics.lookupSent();
    try {
      return redis.hgetall(key).thenApply(entries -> {
        List<String> others = live(key, entries);
        listener.otherNodesRead(uid, others.size());
        return others;
      });
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
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
