package io.playline.job.redis;

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
import io.playline.time.Time;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The write-back recovery marks ({@link RedisKeys#recovery}: per shard a sorted set of {@code
 * uid:business:oid} for write-throughs and {@code uid:~<nonce>} for deletes and clears, scored by
 * the shard's stamps, {@code mark_recovery.lua}): finds marks older than an age by Redis's clock
 * ({@code recovery_due.lua}), and clears persisted ones with {@code clear_recovery.lua}, which
 * keeps a mark rescored by a newer write. And the recovery logs ({@link RedisKeys#recoveryLog}: per
 * shard a stream, one entry per write call listing the items it applied): finds entries older than
 * an age by Redis's clock ({@code recovery_log_due.lua}) and deletes them once persisted.
 *
 * <p>Confined to one thread: it queues on a pipelining connection its owner opened for that thread.
 */
public final class RecoveryMarks {
  /** Members per {@code clear_recovery} call, so one script never holds Redis for long. */
  static final int MEMBERS_PER_SCRIPT = 500;
  private static final RedisScript LOG_DUE = RedisScript.load(RecoveryMarks.class, "recovery_log_due.lua");

  private final StatefulConnection<byte[], byte[]> pipeline;
  private final RedisClusterAsyncCommands<byte[], byte[]> commands;
  private final RedisClusterAsyncCommands<byte[], byte[]> fallback;
  private final RedisKeys keys;
  private final int shards;
  private final Duration timeout;
  private final Time time;

  /**
   * Queues on {@code pipeline} (auto flush off, owned by the caller); {@code fallback} is an
   * auto-flushing connection for reloading a script Redis forgot; each round trip may take {@code
   * timeout} by {@code time}.
   */
  public RecoveryMarks(StatefulConnection<byte[], byte[]> pipeline, RedisClusterAsyncCommands<byte[], byte[]> fallback,
      RedisKeys keys, int shards, Duration timeout, Time time) {
    this.time = time;
    this.pipeline = pipeline;
    this.commands = RedisConnections.commands(pipeline);
    this.fallback = fallback;
    this.keys = keys;
    this.shards = shards;
    this.timeout = timeout;
  }

  /**
   * One mark: {@code uid} and the item of a write-through mark {@code uid:business:oid}, or no item
   * for the mark of a delete or clear ({@code uid:~<nonce>}).
   */
  public record Mark(long uid, @Nullable ItemKey item) {
    /** True for the mark of a delete or clear: its user's tombstones are to be persisted. */
    public boolean control() {
      return item == null;
    }
  }

  /** Parses a mark member; a malformed one is an {@link IllegalArgumentException}. */
  public static Mark parse(byte[] member) {
    String s = new String(member, StandardCharsets.US_ASCII);
    int colon = s.indexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("not a recovery mark: " + s);
    }
    try {
      long uid = Long.parseLong(s.substring(0, colon));
      if (s.startsWith("~", colon + 1)) {
        if (uid <= 0 || s.length() == colon + 2) {
          throw new IllegalArgumentException("not a recovery mark: " + s);
        }
        return new Mark(uid, null);
      }
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

  /** Marks found due: scored at most {@code thresholdUs}, oldest first. */
  public record Due(long thresholdUs, List<byte[]> members) {}

  /**
   * Up to {@code limit} marks of {@code shard} older than {@code age} by the shard's Redis clock,
   * oldest first, with the stamp threshold that selected them.
   *
   * @throws RetriableStoreException when Redis is unreachable or does not answer in time
   */
  public Due due(int shard, Duration age, int limit) {
    CompletionStage<List<Object>> reply = Scripts.eval(commands, fallback, RedisScript.RECOVERY_DUE,
        ScriptOutputType.MULTI, new byte[][] {keys.recovery(shard), keys.recoveryClock(shard)},
        Scripts.num(TimeUnit.NANOSECONDS.toMicros(age.toNanos())), Scripts.num(limit));
    pipeline.flushCommands();
    List<Object> answer =
        RedisFailures.await(reply, RoundTripDeadline.after(time, timeout), "recovery_due of shard " + shard);
    long threshold = Long.parseLong(new String((byte[]) answer.get(0), StandardCharsets.US_ASCII));
    List<byte[]> members = new ArrayList<>(answer.size() - 1);
    for (int i = 1; i < answer.size(); i++) {
      members.add((byte[]) answer.get(i));
    }
    return new Due(threshold, members);
  }

  /**
   * One entry of a recovery log: its id and the item marks its field {@code m} lists ({@code
   * uid:business:oid}, as {@link #parse} reads them; other fields are ignored); an entry without that
   * field has no members and {@code malformed} says why.
   */
  public record LogEntry(String id, List<byte[]> members, @Nullable String malformed) {}

  /**
   * Up to {@code limit} entries of {@code shard}'s recovery log older than {@code age} by the log's
   * Redis clock, oldest first.
   *
   * @throws RetriableStoreException when Redis is unreachable or does not answer in time
   */
  public List<LogEntry> dueLog(int shard, Duration age, int limit) {
    CompletionStage<List<Object>> reply = Scripts.eval(commands, fallback, LOG_DUE, ScriptOutputType.MULTI,
        new byte[][] {keys.recoveryLog(shard)}, Scripts.num(age.toMillis()), Scripts.num(limit));
    pipeline.flushCommands();
    List<Object> answer =
        RedisFailures.await(reply, RoundTripDeadline.after(time, timeout), "recovery_log_due of shard " + shard);
    List<LogEntry> entries = new ArrayList<>(answer.size());
    for (Object e : answer) {
      entries.add(logEntry(e));
    }
    return entries;
  }

  /** An XRANGE entry, {@code {id, {field, value, ...}}}, whose field {@code m} lists its items. */
  static LogEntry logEntry(Object raw) {
    if (!(raw instanceof List<?> entry) || entry.size() != 2 || !(entry.get(0) instanceof byte[] id)) {
      throw new IllegalStateException("recovery_log_due answered an entry that is not {id, fields}: " + raw);
    }
    String entryId = new String(id, StandardCharsets.US_ASCII);
    byte @Nullable [] value = null;
    if (entry.get(1) instanceof List<?> fields) {
      for (int i = 0; i + 1 < fields.size(); i += 2) {
        if (fields.get(i) instanceof byte[] f && "m".equals(new String(f, StandardCharsets.US_ASCII))
            && fields.get(i + 1) instanceof byte[] v) {
          value = v;
        }
      }
    }
    if (value == null) {
      return new LogEntry(entryId, List.of(), "no field m listing its items");
    }
    List<byte[]> members = new ArrayList<>();
    int from = 0;
    for (int i = 0; i <= value.length; i++) {
      if (i == value.length || value[i] == ' ') {
        if (i > from) {
          members.add(Arrays.copyOfRange(value, from, i));
        }
        from = i + 1;
      }
    }
    return new LogEntry(entryId, members, null);
  }

  /**
   * Deletes {@code ids} from {@code shard}'s recovery log; returns how many were there.
   *
   * @throws RetriableStoreException when Redis is unreachable or does not answer in time
   */
  public long deleteLog(int shard, List<String> ids) {
    if (ids.isEmpty()) {
      return 0;
    }
    CompletionStage<Long> reply = commands.xdel(keys.recoveryLog(shard), ids.toArray(new String[0]));
    pipeline.flushCommands();
    return RedisFailures.await(reply, RoundTripDeadline.after(time, timeout), "XDEL of " + ids.size()
        + " recovery-log entries of shard " + shard);
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
        args[0] = Scripts.num(e.getKey().limitUs());
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
    RoundTripDeadline deadline = RoundTripDeadline.after(time, timeout);
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

    /** Clears {@code uid}'s mark of {@code item} if scored at most {@code limitUs}; the highest limit given wins. */
    public void add(long uid, ItemKey item, long limitUs) {
      String member = uid + ":" + item.getBusinessValue() + ":" + item.getOid();
      Long previous = limits.get(member);
      if (previous == null || previous < limitUs) {
        limits.put(member, limitUs);
      }
    }

    /** Clears a mark exactly as read from Redis (even a malformed one) if scored at most {@code limitUs}. */
    public void addRaw(int shard, byte[] member, long limitUs) {
      byShardAndLimit.computeIfAbsent(new ShardLimit(shard, limitUs), k -> new ArrayList<>()).add(member);
      size++;
    }

    /** Clears the mark of one delete or clear of {@code uid} ({@code uid:~<nonce>}, unique), whatever its score. */
    public void addControl(long uid, byte[] member) {
      addRaw(shard(uid), member, Long.MAX_VALUE);
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

  private record ShardLimit(int shard, long limitUs) {}
}
