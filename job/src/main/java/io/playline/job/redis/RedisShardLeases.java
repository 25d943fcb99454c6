package io.playline.job.redis;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.core.store.RedisScript;
import io.playline.core.store.RetriableStoreException;
import io.playline.core.store.Scripts;
import io.playline.time.Time;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletionStage;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * The recovery sweep's shard leases in Redis ({@link RedisKeys#recoveryLease}, {@link
 * RedisKeys#recoveryInstances}): a lease is a string holding its owner's id with a TTL, taken with
 * {@code SET NX PX}, renewed and released only by its owner ({@code lease_renew.lua}, {@code
 * lease_release.lua}); live instances advertise themselves in a sorted set scored by expiry
 * ({@code lease_heartbeat.lua}). Every command touches one key, so each works in Redis Cluster;
 * scripts use only Redis 6.2 commands. Each method is one pipelined round trip.
 *
 * <p>Confined to one thread: it queues on a pipelining connection its owner opened for that thread.
 */
public final class RedisShardLeases {
  private static final RedisScript RENEW = RedisScript.load(RedisShardLeases.class, "lease_renew.lua");
  private static final RedisScript RELEASE = RedisScript.load(RedisShardLeases.class, "lease_release.lua");
  private static final RedisScript HEARTBEAT = RedisScript.load(RedisShardLeases.class, "lease_heartbeat.lua");

  private final StatefulConnection<byte[], byte[]> pipeline;
  private final RedisClusterAsyncCommands<byte[], byte[]> commands;
  private final RedisClusterAsyncCommands<byte[], byte[]> fallback;
  private final RedisKeys keys;
  private final Duration timeout;
  private final Time time;

  /**
   * Queues on {@code pipeline} (auto flush off, owned by the caller); {@code fallback} is an
   * auto-flushing connection for loading a script Redis forgot; each round trip may take {@code
   * timeout} by {@code time}.
   */
  public RedisShardLeases(StatefulConnection<byte[], byte[]> pipeline,
      RedisClusterAsyncCommands<byte[], byte[]> fallback, RedisKeys keys, Duration timeout, Time time) {
    this.time = time;
    this.pipeline = pipeline;
    this.commands = RedisConnections.commands(pipeline);
    this.fallback = fallback;
    this.keys = keys;
    this.timeout = timeout;
  }

  /**
   * Advertises {@code owner} as live for {@code ttlMs} and returns the ids of every live instance,
   * {@code owner} included, as Redis's clock sees them.
   *
   * @throws RetriableStoreException when Redis is unreachable or does not answer in time
   */
  public List<String> heartbeat(String owner, long ttlMs) {
    CompletionStage<List<byte[]>> reply = Scripts.eval(commands, fallback, HEARTBEAT,
        ScriptOutputType.MULTI, new byte[][] {keys.recoveryInstances()}, bytes(owner), Scripts.num(ttlMs));
    pipeline.flushCommands();
    List<String> live = new ArrayList<>();
    for (byte[] id : RedisFailures.await(reply, deadline(), "lease_heartbeat")) {
      live.add(new String(id, StandardCharsets.UTF_8));
    }
    return live;
  }

  /** Stops advertising {@code owner} (its graceful exit), so the others count it out at once. */
  public void leave(String owner) {
    CompletionStage<Long> reply = commands.zrem(keys.recoveryInstances(), bytes(owner));
    pipeline.flushCommands();
    RedisFailures.await(reply, deadline(), "ZREM of the recovery instances");
  }

  /**
   * Takes the leases of {@code shards} that nobody holds ({@code SET NX PX}) for {@code owner};
   * returns the shards taken.
   *
   * @throws RetriableStoreException when Redis is unreachable or does not answer in time; a lease
   *     taken by then expires after {@code ttlMs} unless taken again
   */
  public TreeSet<Integer> acquire(Collection<Integer> shards, String owner, long ttlMs) {
    SetArgs nx = SetArgs.Builder.nx().px(ttlMs);
    return each(shards, shard -> commands.set(keys.recoveryLease(shard), bytes(owner), nx), "OK"::equals,
        "SET NX of a recovery lease");
  }

  /**
   * Extends by {@code ttlMs} from now those leases of {@code shards} that {@code owner} still
   * holds; returns them (a shard missing from the answer was lost: it expired, and may be another
   * instance's now).
   *
   * @throws RetriableStoreException when Redis is unreachable or does not answer in time
   */
  public TreeSet<Integer> renew(Collection<Integer> shards, String owner, long ttlMs) {
    byte[][] args = {bytes(owner), Scripts.num(ttlMs)};
    return each(shards, shard -> Scripts.eval(commands, fallback, RENEW, ScriptOutputType.INTEGER,
        new byte[][] {keys.recoveryLease(shard)}, args), one -> Long.valueOf(1).equals(one), "lease_renew");
  }

  /**
   * Deletes those leases of {@code shards} that {@code owner} still holds; returns them.
   *
   * @throws RetriableStoreException when Redis is unreachable or does not answer in time; an
   *     unreleased lease expires on its own
   */
  public TreeSet<Integer> release(Collection<Integer> shards, String owner) {
    byte[][] args = {bytes(owner)};
    return each(shards, shard -> Scripts.eval(commands, fallback, RELEASE, ScriptOutputType.INTEGER,
        new byte[][] {keys.recoveryLease(shard)}, args), one -> Long.valueOf(1).equals(one), "lease_release");
  }

  /** Queues {@code command} per shard, flushes once, and returns the shards whose reply passes {@code ok}. */
  private TreeSet<Integer> each(Collection<Integer> shards, IntFunction<CompletionStage<?>> command,
      Predicate<Object> ok, String what) {
    Map<Integer, CompletionStage<?>> replies = new LinkedHashMap<>();
    for (int shard : shards) {
      replies.put(shard, command.apply(shard));
    }
    TreeSet<Integer> passed = new TreeSet<>();
    if (replies.isEmpty()) {
      return passed;
    }
    pipeline.flushCommands();
    RoundTripDeadline deadline = deadline();
    for (Map.Entry<Integer, CompletionStage<?>> e : replies.entrySet()) {
      Object reply = RedisFailures.await(e.getValue(), deadline, what + " of shard " + e.getKey());
      if (reply != null && ok.test(reply)) {
        passed.add(e.getKey());
      }
    }
    return passed;
  }

  private RoundTripDeadline deadline() {
    return RoundTripDeadline.after(time, timeout);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
