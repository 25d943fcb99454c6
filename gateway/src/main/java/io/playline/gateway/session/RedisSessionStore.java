package io.playline.gateway.session;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.playline.core.store.RedisKeys;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sessions as Redis hashes {@code <prefix>s:<id>} with fields uid, device, platform, node, exp (the
 * newest token's expiry) and born (creation time), with an idle TTL ({@code session.ttl}) that is
 * never set past the session's deadline. A hash without exp or born (written before sessions
 * expired with their tokens) reads as expired. Session ids are random UUIDs (122 random bits): possession is the
 * credential, so they are never logged in full. Thread-safe; all calls are asynchronous.
 */
public final class RedisSessionStore implements SessionStore {
  private static final Logger log = LoggerFactory.getLogger(RedisSessionStore.class);
  private static final byte[] UID = bytes("uid");
  private static final byte[] DEVICE = bytes("device");
  private static final byte[] PLATFORM = bytes("platform");
  private static final byte[] NODE = bytes("node");
  private static final byte[] EXP = bytes("exp");
  private static final byte[] BORN = bytes("born");

  private final RedisClusterAsyncCommands<byte[], byte[]> redis;
  private final RedisKeys keys;
  private final long ttlMs;
  private final long maxAgeMs;
  private final byte[] nodeId;

  public RedisSessionStore(RedisClusterAsyncCommands<byte[], byte[]> redis, RedisKeys keys, Duration ttl,
      Duration maxAge, String nodeId) {
    this.redis = redis;
    this.keys = keys;
    this.ttlMs = ttl.toMillis();
    this.maxAgeMs = maxAge.toMillis();
    this.nodeId = bytes(nodeId);
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
    redis.hset(key, fields).thenCompose(n -> redis.pexpire(key, ttl)).whenComplete((ok, error) -> {
      if (error != null) {
        log.warn("Storing session {}… failed: {}", shortId(identity.sessionId()), error.toString());
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
