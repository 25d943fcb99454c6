package io.playline.gateway.session;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.playline.core.store.RedisKeys;
import io.playline.core.store.RedisScript;
import io.playline.core.store.Scripts;
import io.playline.gateway.stream.ConnectionIdentity;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sessions as Redis hashes {@code <prefix>s:<id>} with fields uid, device, platform, node, exp (the
 * newest token's expiry) and born (creation time), with an idle TTL ({@code session.ttl}) that is
 * never set past the session's deadline. A hash without exp or born (written before sessions
 * expired with their tokens) reads as expired. Session ids are random UUIDs (122 random bits): possession is the
 * credential, so they are never logged in full.
 *
 * <p>A user's sessions are capped ({@code session.max.per.user}) by an index next to the user's
 * history (hash tag {@code {uid}}): {@code <prefix>su:{uid}} (sorted set of device ids by the time of
 * their newest session) and {@code <prefix>sd:{uid}} (hash: device id to that session's id), kept
 * by {@code index_session.lua} on every new session. A device's new session replaces its old one;
 * past the cap the sessions of the devices whose newest session was created least recently are
 * deleted (a resume does not move a device in the index). Each new
 * session costs O(log cap) in Redis, plus one DEL per session dropped; the index lives {@code
 * session.max.age} after the user's last new session, so it outlives every session it names.
 * Thread-safe; all calls are asynchronous.
 */
public final class RedisResumeStore implements ResumeStore {
  private static final Logger log = LoggerFactory.getLogger(RedisResumeStore.class);
  private static final byte[] UID = bytes("uid");
  private static final byte[] DEVICE = bytes("device");
  private static final byte[] PLATFORM = bytes("platform");
  private static final byte[] NODE = bytes("node");
  private static final byte[] EXP = bytes("exp");
  private static final byte[] BORN = bytes("born");

  private static final RedisScript INDEX_SESSION = RedisScript.load(RedisResumeStore.class, "index_session.lua");

  private final RedisClusterAsyncCommands<byte[], byte[]> redis;
  private final RedisKeys keys;
  private final long ttlMs;
  private final long maxAgeMs;
  private final int maxPerUser;
  private final byte[] nodeId;
  private final GatewayMetrics metrics;

  /** Sessions live {@code ttl} idle and {@code maxAge} at most; a user keeps at most {@code maxPerUser}. */
  public RedisResumeStore(RedisClusterAsyncCommands<byte[], byte[]> redis, RedisKeys keys, Duration ttl,
      Duration maxAge, int maxPerUser, String nodeId, GatewayMetrics metrics) {
    if (maxPerUser <= 0) {
      throw new IllegalArgumentException("maxPerUser: " + maxPerUser + " (expected: > 0)");
    }
    this.redis = redis;
    this.keys = keys;
    this.ttlMs = ttl.toMillis();
    this.maxAgeMs = maxAge.toMillis();
    this.maxPerUser = maxPerUser;
    this.nodeId = bytes(nodeId);
    this.metrics = metrics;
  }

  @Override
  public void create(StoredSession session, long nowMs) {
    ConnectionIdentity identity = session.identity();
    byte[] key = keys.session(identity.sessionId());
    Map<byte[], byte[]> fields = new HashMap<>();
    fields.put(UID, bytes(Long.toString(identity.uid())));
    fields.put(DEVICE, bytes(identity.deviceId()));
    fields.put(PLATFORM, bytes(identity.platform()));
    fields.put(NODE, nodeId);
    fields.put(EXP, bytes(Long.toString(session.tokenExpiresAtMs())));
    fields.put(BORN, bytes(Long.toString(session.createdAtMs())));
    long ttl = ttl(session.notAfterMs(maxAgeMs), nowMs);
    // The index only after the hash is stored: its key and the index's lie in different cluster
    // slots, so sent together a DEL of this session (a newer one replacing it) could land before
    // the HSET and leave a hash no index names.
    redis.hset(key, fields).thenCompose(n -> redis.pexpire(key, ttl)).whenComplete((ok, error) -> {
      if (error != null) {
        log.warn("Storing session {}… failed: {}", shortId(identity.sessionId()), error.toString());
      } else {
        index(identity, nowMs);
      }
    });
  }

  /** Enters the new session in its user's index and deletes the sessions it replaces or pushes over the cap. */
  private void index(ConnectionIdentity identity, long nowMs) {
    String tag = ":{" + identity.uid() + "}";
    byte[][] index = {bytes(keys.prefix() + "su" + tag), bytes(keys.prefix() + "sd" + tag)};
    Scripts.<List<Object>>eval(redis, redis, INDEX_SESSION, ScriptOutputType.MULTI, index,
        bytes(identity.deviceId()), bytes(identity.sessionId()), Scripts.num(nowMs), Scripts.num(maxPerUser),
        Scripts.num(maxAgeMs)).thenCompose(dropped -> {
          // One DEL per session: their keys lie in different cluster slots. A session counts as
          // dropped only when its DEL deleted it (one that had expired was not dropped by the cap).
          CompletableFuture<?>[] deletes = new CompletableFuture<?>[dropped.size()];
          for (int i = 0; i < dropped.size(); i++) {
            byte[] id = (byte[]) dropped.get(i);
            boolean replaced = i == 0;
            deletes[i] = id.length == 0 ? CompletableFuture.completedFuture(null)
                : redis.del(keys.session(string(id))).thenAccept(n -> {
                  if (n != null && n == 1) {
                    metrics.sessionsDropped(replaced ? 1 : 0, replaced ? 0 : 1);
                  }
                }).toCompletableFuture();
          }
          return CompletableFuture.allOf(deletes);
        }).whenComplete((ok, error) -> {
          if (error != null) {
            log.warn("Indexing session {}… failed: {}", shortId(identity.sessionId()), error.toString());
          }
        });
  }

  @Override
  public CompletionStage<Optional<StoredSession>> find(String sessionId) {
    return redis.hgetall(keys.session(sessionId)).thenApply(fields -> {
      byte[] uid = get(fields, UID);
      if (uid == null) {
        return Optional.<StoredSession>empty();
      }
      ConnectionIdentity identity = new ConnectionIdentity(Long.parseLong(string(uid)), sessionId,
          string(get(fields, DEVICE)), string(get(fields, PLATFORM)));
      return Optional.of(new StoredSession(identity, number(get(fields, EXP)), number(get(fields, BORN))));
    });
  }

  @Override
  public void refresh(String sessionId, long notAfterMs, long nowMs) {
    redis.pexpire(keys.session(sessionId), ttl(notAfterMs, nowMs)).whenComplete((ok, error) -> {
      if (error != null) {
        log.debug("Refreshing session {}… failed: {}", shortId(sessionId), error.toString());
      }
    });
  }

  @Override
  public void renew(String sessionId, long tokenExpiresAtMs, long notAfterMs, long nowMs) {
    byte[] key = keys.session(sessionId);
    long ttl = ttl(notAfterMs, nowMs);
    // HSET on an expired session would recreate a hash without uid: only renew one that exists.
    redis.exists(key).thenCompose(n -> n == 0 ? java.util.concurrent.CompletableFuture.completedFuture(false)
            : redis.hset(key, EXP, bytes(Long.toString(tokenExpiresAtMs))).thenCompose(x -> redis.pexpire(key, ttl)))
        .whenComplete((ok, error) -> {
          if (error != null) {
            log.debug("Renewing session {}… failed: {}", shortId(sessionId), error.toString());
          }
        });
  }

  /** The idle TTL, cut to the deadline; at least 1 ms (a past deadline is also refused by the reader). */
  private long ttl(long notAfterMs, long nowMs) {
    return Math.max(1, Math.min(ttlMs, notAfterMs - nowMs));
  }

  private static long number(byte @Nullable [] b) {
    try {
      return b == null ? 0 : Long.parseLong(string(b));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static byte @Nullable [] get(Map<byte[], byte[]> fields, byte[] name) {
    for (Map.Entry<byte[], byte[]> e : fields.entrySet()) {
      if (java.util.Arrays.equals(e.getKey(), name)) {
        return e.getValue();
      }
    }
    return null;
  }

  static String shortId(String sessionId) {
    return sessionId.length() <= 8 ? sessionId : sessionId.substring(0, 8);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String string(byte @Nullable [] b) {
    return b == null ? "" : new String(b, StandardCharsets.UTF_8);
  }
}
