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
 * Sessions as Redis hashes {@code <prefix>s:<id>} with fields uid, device, platform, node and a
 * TTL ({@code session.ttl}). Session ids are random UUIDs (122 random bits): possession is the
 * credential, so they are never logged in full. Thread-safe; all calls are asynchronous.
 */
public final class RedisSessionStore implements SessionStore {
  private static final Logger log = LoggerFactory.getLogger(RedisSessionStore.class);
  private static final byte[] UID = bytes("uid");
  private static final byte[] DEVICE = bytes("device");
  private static final byte[] PLATFORM = bytes("platform");
  private static final byte[] NODE = bytes("node");

  private final RedisClusterAsyncCommands<byte[], byte[]> redis;
  private final RedisKeys keys;
  private final long ttlMs;
  private final byte[] nodeId;

  public RedisSessionStore(RedisClusterAsyncCommands<byte[], byte[]> redis, RedisKeys keys, Duration ttl, String nodeId) {
    this.redis = redis;
    this.keys = keys;
    this.ttlMs = ttl.toMillis();
    this.nodeId = bytes(nodeId);
  }

  @Override
  public void create(ConnectionIdentity identity) {
    byte[] key = keys.session(identity.sessionId());
    Map<byte[], byte[]> fields = new HashMap<>();
    fields.put(UID, bytes(Long.toString(identity.uid())));
    fields.put(DEVICE, bytes(identity.deviceId()));
    fields.put(PLATFORM, bytes(identity.platform()));
    fields.put(NODE, nodeId);
    redis.hset(key, fields).thenCompose(n -> redis.pexpire(key, ttlMs)).whenComplete((ok, error) -> {
      if (error != null) {
        log.warn("Storing session {}… failed: {}", shortId(identity.sessionId()), error.toString());
      }
    });
  }

  @Override
  public CompletionStage<Optional<ConnectionIdentity>> find(String sessionId) {
    return redis.hgetall(keys.session(sessionId)).thenApply(fields -> {
      byte[] uid = get(fields, UID);
      if (uid == null) {
        return Optional.<ConnectionIdentity>empty();
      }
      return Optional.of(new ConnectionIdentity(Long.parseLong(string(uid)), sessionId,
          string(get(fields, DEVICE)), string(get(fields, PLATFORM))));
    });
  }

  @Override
  public void refresh(String sessionId) {
    redis.pexpire(keys.session(sessionId), ttlMs).whenComplete((ok, error) -> {
      if (error != null) {
        log.debug("Refreshing session {}… failed: {}", shortId(sessionId), error.toString());
      }
    });
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
