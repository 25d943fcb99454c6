package io.playline.job.redis;

import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.core.store.RedisScript;
import io.playline.core.store.RetriableStoreException;
import io.playline.core.store.Scripts;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ItemKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * The write-back recovery marks ({@link RedisKeys#recovery}: per shard a sorted set of {@code
 * uid:business:oid} scored by server write time): finds marks older than a time, and clears
 * persisted ones with {@code clear_recovery.lua}, which keeps a mark rescored by a newer write.
 *
 * <p>Confined to one thread: it queues on a pipelining connection its owner opened for that thread.
 */
public final class RecoveryMarks {
  /** Members per {@code clear_recovery} call, so one script never holds Redis for long. */
  static final int MEMBERS_PER_SCRIPT = 500;

  private final StatefulConnection<byte[], byte[]> pipeline;
  private final RedisClusterAsyncCommands<byte[], byte[]> commands;
  private final RedisClusterAsyncCommands<byte[], byte[]> fallback;
  private final RedisKeys keys;
  private final int shards;
  private final Duration timeout;

  /**
   * Queues on {@code pipeline} (auto flush off, owned by the caller); {@code fallback} is an
   * auto-flushing connection for reloading a script Redis forgot.
   */
  public RecoveryMarks(StatefulConnection<byte[], byte[]> pipeline, RedisClusterAsyncCommands<byte[], byte[]> fallback,
      RedisKeys keys, int shards, Duration timeout) {
    this.pipeline = pipeline;
    this.commands = RedisConnections.commands(pipeline);
    this.fallback = fallback;
    this.keys = keys;
    this.shards = shards;
    this.timeout = timeout;
  }

  /** One user's item as a mark: {@code uid}, and the item of a member {@code business:oid}. */
  public record Mark(long uid, ItemKey item) {}

  /** Parses a mark member {@code uid:business:oid}; a malformed one is an {@link IllegalArgumentException}. */
  public static Mark parse(byte[] member) {
    String s = new String(member, StandardCharsets.US_ASCII);
    int colon = s.indexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("not a recovery mark: " + s);
    }
    try {
      long uid = Long.parseLong(s.substring(0, colon));
      ItemKey item = RedisKeys.item(s.substring(colon + 1).getBytes(StandardCharsets.US_ASCII));
      if (uid <= 0 || item.getOid() <= 0 || item.getBusiness() == Business.BUSINESS_UNSPECIFIED) {
        throw new IllegalArgumentException("not a recovery mark: " + s);
      }
      return new Mark(uid, item);
    } catch (NumberFormatException | NullPointerException e) {
      // Business.forNumber answers null for a number it does not know.
      throw new IllegalArgumentException("not a recovery mark: " + s, e);
    }
  }

  /** The shard holding {@code uid}'s marks. */
  public int shard(long uid) {
    return RedisKeys.recoveryShard(uid, shards);
  }

  public int shards() {
    return shards;
  }

  /**
   * Up to {@code limit} marks of {@code shard} scored at most {@code maxScoreMs}, oldest first.
   *
   * @throws RetriableStoreException when Redis is unreachable or does not answer in time
   */
  public List<byte[]> olderThan(int shard, long maxScoreMs, int limit) {
    CompletionStage<List<byte[]>> reply = commands.zrangebyscore(keys.recovery(shard),
        Range.create(Double.NEGATIVE_INFINITY, (double) maxScoreMs), Limit.create(0, limit));
    pipeline.flushCommands();
    return RedisFailures.await(reply, System.nanoTime() + timeout.toNanos(), "ZRANGEBYSCORE of recovery shard " + shard);
  }

  /**
   * Removes the marks of {@code clears} that are still scored at most their clear's limit, in one
   * pipelined round trip; returns how many were removed.
   *
   * @throws RetriableStoreException when Redis is unreachable or does not answer in time
   */
  public long clear(Clears clears) {
    int total = clears.size();
    List<CompletionStage<Long>> replies = new ArrayList<>();
    for (Map.Entry<ShardLimit, List<byte[]>> e : clears.byShardAndLimit.entrySet()) {
      byte[][] shardKey = {keys.recovery(e.getKey().shard())};
      List<byte[]> members = e.getValue();
      for (int from = 0; from < members.size(); from += MEMBERS_PER_SCRIPT) {
        List<byte[]> chunk = members.subList(from, Math.min(members.size(), from + MEMBERS_PER_SCRIPT));
        byte[][] args = new byte[chunk.size() + 1][];
        args[0] = Scripts.num(e.getKey().limitMs());
        for (int i = 0; i < chunk.size(); i++) {
          args[i + 1] = chunk.get(i);
        }
        replies.add(Scripts.<Long>eval(commands, fallback, RedisScript.CLEAR_RECOVERY, ScriptOutputType.INTEGER,
            shardKey, args));
      }
    }
    if (replies.isEmpty()) {
      return 0;
    }
    pipeline.flushCommands();
    long deadline = System.nanoTime() + timeout.toNanos();
    long removed = 0;
    for (CompletionStage<Long> reply : replies) {
      removed += RedisFailures.await(reply, deadline, "clear_recovery of " + total + " marks");
    }
    return removed;
  }

  /** Starts a set of marks to clear, grouped by shard and limit as {@link #clear} sends them. */
  public Clears newClears() {
    return new Clears();
  }

  /** Marks to clear, each with the time up to which it may go. Not thread-safe; one use. */
  public final class Clears {
    private final Map<String, Long> limits = new HashMap<>();
    private final Map<ShardLimit, List<byte[]>> byShardAndLimit = new HashMap<>();
    private int size;

    private Clears() {}

    /** Clears {@code uid}'s mark of {@code item} if scored at most {@code limitMs}; the highest limit given wins. */
    public void add(long uid, ItemKey item, long limitMs) {
      String member = uid + ":" + item.getBusinessValue() + ":" + item.getOid();
      Long previous = limits.get(member);
      if (previous == null || previous < limitMs) {
        limits.put(member, limitMs);
      }
    }

    /** Clears a mark exactly as read from Redis (even a malformed one) if scored at most {@code limitMs}. */
    public void addRaw(int shard, byte[] member, long limitMs) {
      byShardAndLimit.computeIfAbsent(new ShardLimit(shard, limitMs), k -> new ArrayList<>()).add(member);
      size++;
    }

    /** How many marks this holds. */
    public int size() {
      flushLimits();
      return size;
    }

    private void flushLimits() {
      for (Map.Entry<String, Long> e : limits.entrySet()) {
        long uid = Long.parseLong(e.getKey().substring(0, e.getKey().indexOf(':')));
        addRaw(shard(uid), e.getKey().getBytes(StandardCharsets.US_ASCII), e.getValue());
      }
      limits.clear();
    }
  }

  private record ShardLimit(int shard, long limitMs) {}
}
