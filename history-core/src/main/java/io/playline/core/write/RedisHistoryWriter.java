package io.playline.core.write;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.netty.util.concurrent.EventExecutor;
import io.playline.core.config.CoreConfig;
import io.playline.core.config.FirstTodayOutboxConfig;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.core.store.RedisScript;
import io.playline.core.store.Scripts;
import io.playline.proto.v1.HistoryRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongToIntFunction;
import org.jspecify.annotations.Nullable;

/**
 * Applies a {@link WriteBatch} to Redis in one pipelined round trip: one {@code write_history}
 * script call per {@link CoreConfig#usersPerScript()} user writes (last write wins by view time,
 * tombstones, pause, trim, TTL; each user atomically) and one {@code first_today} script per check
 * (which also leaves the day's event in an outbox).
 *
 * <p>Every written event is marked in its user's recovery shard, stamped after the write (see
 * {@code mark_recovery.lua} and the job's mark clears). On a single server each {@code write_history}
 * call stamps its own users' shards in the same atomic script, so a batch of up to
 * {@code usersPerScript} users is one script call. In Redis Cluster the recovery shards' keys have
 * slots of their own: the writes go one call per slot, and {@code mark_recovery} one call per touched
 * shard once the writes answered.
 *
 * <p>Not thread-safe: owns a pipelining connection and must be called from one thread at a time,
 * best from {@link #eventLoop()} (the Redis I/O loop), where the write goes straight to the
 * socket and the answer completes on the same thread.
 */
public final class RedisHistoryWriter implements HistoryWriter, AutoCloseable {
  private static final long NOT_FIRST = 1L;
  private static final long FIRST_OUTBOX_FULL = 2L;
  /** first_today.lua's ARGV[5]: the spot is a set member, or a bit. */
  private static final byte[] MEMBER = {'m'};
  private static final byte[] BIT = {'b'};
  private static final int[] NO_SHARDS = {};
  private final CoreConfig config;
  private final RedisKeys keys;
  private final StatefulConnection<byte[], byte[]> pipeline;
  private final RedisClusterAsyncCommands<byte[], byte[]> commands;
  private final RedisClusterAsyncCommands<byte[], byte[]> fallback;
  private final WriteBackSink sink;
  private final WriteMetrics metrics;
  private final EventExecutor loop;
  private final boolean cluster;

  public RedisHistoryWriter(CoreConfig config, RedisConnections redis, WriteBackSink sink, WriteMetrics metrics) {
    this.config = config;
    this.keys = new RedisKeys(config.redisKeyPrefix());
    this.pipeline = redis.newPipeline();
    this.commands = RedisConnections.commands(pipeline);
    this.fallback = redis.shared();
    this.sink = sink;
    this.metrics = metrics;
    this.loop = redis.ioLoop();
    this.cluster = pipeline instanceof StatefulRedisClusterConnection;
  }

  @Override
  public EventExecutor eventLoop() {
    return loop;
  }

  @Override
  public CompletionStage<BatchOutcome> write(WriteBatch batch) {
    sink.batchStarted();
    List<UserWrite> userWrites = batch.writes();
    List<int[]> calls = plan(userWrites, config.usersPerScript(), cluster ? uid -> SlotHash.getSlot(keys.timeline(uid)) : null);
    List<CompletableFuture<List<Object>>> writes = new ArrayList<>(calls.size());
    List<int[]> callShards = new ArrayList<>(calls.size());
    for (int[] call : calls) {
      int[] shards = cluster ? NO_SHARDS : shardsOf(userWrites, call);
      callShards.add(shards);
      writes.add(Scripts.eval(commands, fallback, RedisScript.WRITE_HISTORY, ScriptOutputType.MULTI,
          writeKeys(userWrites, call, shards), writeArgs(userWrites, call, shards)));
    }
    List<CompletableFuture<Long>> checks = firstTodayChecks(batch);
    List<CompletableFuture<?>> all = new ArrayList<>(writes);
    all.addAll(checks);
    // In a cluster the marks' shards live on other nodes: they go once the writes answered, on the
    // auto-flushing connection, so each is still stamped after its write.
    Map<Integer, List<byte[]>> clusterMarks = cluster ? marks(userWrites) : Map.of();
    CompletableFuture<Map<Integer, Long>> clusterStamps = clusterMarks.isEmpty()
        ? CompletableFuture.completedFuture(Map.of())
        : CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0])).thenCompose(v -> mark(clusterMarks));
    all.add(clusterStamps);
    pipeline.flushCommands();
    metrics.roundTrip(writes.size() + checks.size() + clusterMarks.size(), checks.size());
    return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0]))
        .thenApply(v -> assemble(batch, calls, callShards, writes, checks, clusterStamps.join()))
        .whenComplete((answer, error) -> {
          if (error != null) {
            metrics.failedRoundTrip();
          }
          sink.batchFinished(answer == null ? List.of() : applied(batch, answer));
        })
        .thenApply(Answer::outcome);
  }

  private int shard(long uid) {
    return RedisKeys.recoveryShard(uid, config.recoveryShards());
  }

  /** The distinct recovery shards a single-server call marks: those of its users with events, in call order. */
  private int[] shardsOf(List<UserWrite> userWrites, int[] call) {
    return Arrays.stream(call).filter(w -> !userWrites.get(w).records().isEmpty())
        .map(w -> shard(userWrites.get(w).uid())).distinct().toArray();
  }

  private static int indexOf(int[] shards, int shard) {
    for (int s = 0; s < shards.length; s++) {
      if (shards[s] == shard) {
        return s;
      }
    }
    return -1;
  }

  private byte[][] writeKeys(List<UserWrite> userWrites, int[] call, int[] shards) {
    byte[][] callKeys = new byte[4 * call.length + 2 * shards.length][];
    int k = 0;
    for (int w : call) {
      long uid = userWrites.get(w).uid();
      callKeys[k++] = keys.timeline(uid);
      callKeys[k++] = keys.records(uid);
      callKeys[k++] = keys.tombstones(uid);
      callKeys[k++] = keys.paused(uid);
    }
    for (int shard : shards) {
      callKeys[k++] = keys.recovery(shard);
      callKeys[k++] = keys.recoveryClock(shard);
    }
    return callKeys;
  }

  /** write_history.lua's ARGV; a user is marked in the call's shard at its 1-based index, 0 for none. */
  private byte[][] writeArgs(List<UserWrite> userWrites, int[] call, int[] shards) {
    int argc = 3;
    for (int w : call) {
      argc += 3 + 3 * userWrites.get(w).records().size();
    }
    byte[][] args = new byte[argc][];
    args[0] = Scripts.num(config.maxItemsPerUser());
    args[1] = Scripts.num(config.redisHistoryTtl().toMillis());
    args[2] = Scripts.num(shards.length);
    int i = 3;
    for (int w : call) {
      UserWrite write = userWrites.get(w);
      args[i++] = Scripts.num(write.records().size());
      args[i++] = Scripts.num(indexOf(shards, shard(write.uid())) + 1);
      args[i++] = Scripts.num(write.uid());
      for (HistoryRecord r : write.records()) {
        args[i++] = RedisKeys.member(r.getBusiness(), r.getOid());
        args[i++] = Scripts.num(r.getViewTimeMs());
        args[i++] = r.toByteArray();
      }
    }
    return args;
  }

  /** Per recovery shard, the marks of every event of the batch (Redis Cluster). */
  private Map<Integer, List<byte[]>> marks(List<UserWrite> userWrites) {
    Map<Integer, List<byte[]>> marks = new HashMap<>();
    for (UserWrite write : userWrites) {
      for (HistoryRecord r : write.records()) {
        marks.computeIfAbsent(shard(write.uid()), s -> new ArrayList<>())
            .add(RedisKeys.recoveryMember(write.uid(), RedisKeys.member(r.getBusiness(), r.getOid())));
      }
    }
    return marks;
  }

  /**
   * Queues {@code mark_recovery} on the auto-flushing connection, one call per shard (in a cluster
   * each shard's keys have a slot of their own); completes with each shard's stamp.
   */
  private CompletableFuture<Map<Integer, Long>> mark(Map<Integer, List<byte[]>> marks) {
    List<Integer> shards = List.copyOf(marks.keySet());
    List<CompletableFuture<List<Object>>> answers = new ArrayList<>(shards.size());
    for (int shard : shards) {
      List<byte[]> members = marks.get(shard);
      byte[][] args = new byte[1 + members.size()][];
      args[0] = Scripts.num(members.size());
      for (int i = 0; i < members.size(); i++) {
        args[1 + i] = members.get(i);
      }
      answers.add(Scripts.eval(fallback, fallback, RedisScript.MARK_RECOVERY, ScriptOutputType.MULTI,
          new byte[][] {keys.recovery(shard), keys.recoveryClock(shard)}, args));
    }
    return CompletableFuture.allOf(answers.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
      Map<Integer, Long> stamps = new HashMap<>();
      for (int c = 0; c < shards.size(); c++) {
        stamps.put(shards.get(c), (Long) answers.get(c).join().get(0));
      }
      return stamps;
    });
  }

  /**
   * Queues one {@code first_today} script per check: it sets the user's bit and, on the day's first
   * check, leaves the event in the bitmap's outbox in the same atomic step, so the event outlives
   * this process, a Kafka outage and a failure of the rest of the batch (the publisher removes it
   * on Kafka's ack; a sweep sends what is left). Each answer is 0 (first, in the outbox), 1 (not
   * first) or 2 (first, outbox full: published from memory only, at most once).
   */
  private List<CompletableFuture<Long>> firstTodayChecks(WriteBatch batch) {
    List<CompletableFuture<Long>> checks = new ArrayList<>(batch.firstTodays().size());
    if (batch.firstTodays().isEmpty()) {
      return checks;
    }
    FirstTodayOutboxConfig outbox = config.firstTodayOutbox();
    int shards = config.firstTodayShards();
    String isoDay = FirstTodayCheck.isoDay(batch.day());
    byte[] expiry = Scripts.num(batch.expiryMs());
    byte[] capacity = Scripts.num(outbox.capacityPerShard());
    for (FirstTodayCheck check : batch.firstTodays()) {
      long uid = check.uid();
      RedisKeys.FirstTodaySpot spot = keys.firstTodaySpot(batch.day(), uid, shards, outbox.shards(),
          config.firstTodayBitmapMaxUid());
      byte[][] ftKeys = {spot.key(),
          keys.firstTodayOutbox(RedisKeys.firstTodayOutboxShard(uid, shards, outbox.shards()))};
      CompletableFuture<Long> answer = Scripts.eval(commands, fallback, RedisScript.FIRST_TODAY,
          ScriptOutputType.INTEGER, ftKeys, spot.argument(), expiry, check.event(isoDay, batch.nowMs()).toByteArray(),
          capacity, spot.member() ? MEMBER : BIT);
      checks.add(answer.thenApply(code -> {
        if (code == FIRST_OUTBOX_FULL) {
          metrics.firstTodayOutboxFull(uid);
        }
        return code;
      }));
    }
    return checks;
  }

  /**
   * Splits a batch's user writes into {@code write_history} calls of at most {@code usersPerScript}
   * users each, as indexes into {@code writes}, in batch order; with {@code slotOf} (Redis Cluster)
   * a call only holds users of one hash slot, each slot's users in batch order.
   */
  static List<int[]> plan(List<UserWrite> writes, int usersPerScript, @Nullable LongToIntFunction slotOf) {
    // Without slots, every user shares one group.
    Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
    for (int w = 0; w < writes.size(); w++) {
      int slot = slotOf == null ? 0 : slotOf.applyAsInt(writes.get(w).uid());
      bySlot.computeIfAbsent(slot, s -> new ArrayList<>()).add(w);
    }
    List<int[]> calls = new ArrayList<>(writes.size() / usersPerScript + 1);
    for (List<Integer> group : bySlot.values()) {
      for (int from = 0; from < group.size(); from += usersPerScript) {
        int[] call = new int[Math.min(usersPerScript, group.size() - from)];
        for (int j = 0; j < call.length; j++) {
          call[j] = group.get(from + j);
        }
        calls.add(call);
      }
    }
    return calls;
  }

  /** A batch's outcome with, per user write, the stamp its events' recovery marks got. */
  private record Answer(BatchOutcome outcome, long[] stamps) {}

  private Answer assemble(WriteBatch batch, List<int[]> calls, List<int[]> callShards,
      List<CompletableFuture<List<Object>>> writes, List<CompletableFuture<Long>> checks,
      Map<Integer, Long> clusterStamps) {
    WriteOutcome[] outcomes = new WriteOutcome[batch.writes().size()];
    long[] stamps = new long[outcomes.length];
    for (int c = 0; c < calls.size(); c++) {
      List<Object> reply = writes.get(c).join();
      int[] shards = callShards.get(c);
      int p = 0;
      for (int w : calls.get(c)) {
        int n = batch.writes().get(w).records().size();
        if (reply.size() < p + 1 + n) {
          throw new IllegalStateException("write_history answered " + reply.size() + " values for "
              + calls.get(c).length + " users; too few at user " + (w + 1) + " of the batch");
        }
        byte[] codes = new byte[n];
        for (int i = 0; i < n; i++) {
          codes[i] = (byte) ((Long) reply.get(p + 1 + i)).intValue();
        }
        outcomes[w] = new WriteOutcome(((Long) reply.get(p)) == 1L, codes);
        p += 1 + n;
      }
      if (p + shards.length != reply.size()) {
        throw new IllegalStateException("write_history answered " + reply.size() + " values, expected "
            + (p + shards.length));
      }
      for (int w : calls.get(c)) {
        int shard = shard(batch.writes().get(w).uid());
        int s = indexOf(shards, shard);
        stamps[w] = s >= 0 ? (Long) reply.get(p + s) : clusterStamps.getOrDefault(shard, 0L);
      }
    }
    boolean[] firstToday = new boolean[checks.size()];
    for (int i = 0; i < checks.size(); i++) {
      firstToday[i] = checks.get(i).join() != NOT_FIRST;
    }
    return new Answer(new BatchOutcome(List.of(outcomes), firstToday), stamps);
  }

  /** The records Redis applied, each with the stamp of its recovery mark. */
  private static List<AppliedRecord> applied(WriteBatch batch, Answer answer) {
    List<AppliedRecord> applied = new ArrayList<>();
    for (int w = 0; w < batch.writes().size(); w++) {
      WriteOutcome o = answer.outcome().writes().get(w);
      List<HistoryRecord> records = batch.writes().get(w).records();
      for (int i = 0; i < records.size(); i++) {
        if (o.applied(i)) {
          applied.add(new AppliedRecord(records.get(i), answer.stamps()[w]));
        }
      }
    }
    return applied;
  }

  @Override
  public void close() {
    pipeline.close();
  }
}
