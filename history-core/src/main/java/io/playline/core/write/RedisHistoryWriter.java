package io.playline.core.write;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.netty.util.concurrent.EventExecutor;
import io.playline.core.CoreConfig;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.core.store.RedisScript;
import io.playline.core.store.Scripts;
import io.playline.proto.v1.HistoryRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongToIntFunction;
import org.jspecify.annotations.Nullable;

/**
 * Applies a {@link WriteBatch} to Redis in one pipelined round trip: one {@code write_history}
 * script call per {@link CoreConfig#usersPerScript()} user writes (last write wins by view time,
 * tombstones, pause, trim, TTL; each user atomically), {@code mark_recovery} for the touched
 * recovery shards (on one server a single call for all of them, pipelined behind the writes; in a
 * cluster one call per shard once the writes answered), one {@code first_today} script per check (which also leaves the
 * day's event in an outbox).
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
    Map<Integer, List<byte[]>> marks = new HashMap<>();
    AtomicBoolean writesResent = new AtomicBoolean();
    Runnable resent = () -> writesResent.set(true);
    byte[] maxItems = Scripts.num(config.maxItemsPerUser());
    byte[] ttl = Scripts.num(config.redisHistoryTtl().toMillis());
    for (int[] call : calls) {
      byte[][] callKeys = new byte[4 * call.length][];
      int argc = 2;
      for (int w : call) {
        argc += 1 + 3 * userWrites.get(w).records().size();
      }
      byte[][] args = new byte[argc][];
      args[0] = maxItems;
      args[1] = ttl;
      int k = 0;
      int i = 2;
      for (int w : call) {
        UserWrite write = userWrites.get(w);
        long uid = write.uid();
        callKeys[k++] = keys.timeline(uid);
        callKeys[k++] = keys.records(uid);
        callKeys[k++] = keys.tombstones(uid);
        callKeys[k++] = keys.paused(uid);
        args[i++] = Scripts.num(write.records().size());
        List<byte[]> shardMarks =
            write.records().isEmpty() ? List.of() : marks.computeIfAbsent(shard(uid), s -> new ArrayList<>());
        for (HistoryRecord r : write.records()) {
          byte[] member = RedisKeys.member(r.getBusiness(), r.getOid());
          args[i++] = member;
          args[i++] = Scripts.num(r.getViewTimeMs());
          args[i++] = r.toByteArray();
          shardMarks.add(RedisKeys.recoveryMember(uid, member));
        }
      }
      writes.add(Scripts.eval(commands, fallback, RedisScript.WRITE_HISTORY, ScriptOutputType.MULTI, resent,
          callKeys, args));
    }
    List<CompletableFuture<Long>> checks = firstTodayChecks(batch);
    // A mark must be stamped after its write ran (see mark_recovery.lua and the job's mark clears):
    // on one server the pipeline keeps that order; in a cluster the marks' shards live on other
    // nodes, so they go once the writes answered, on the auto-flushing connection.
    CompletableFuture<Map<Integer, Long>> stamps;
    List<CompletableFuture<?>> all = new ArrayList<>(writes);
    all.addAll(checks);
    if (cluster) {
      stamps = CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0]))
          .thenCompose(v -> mark(fallback, marks));
    } else {
      // A write_history that met NOSCRIPT (a flushed or restarted Redis whose cache already holds
      // mark_recovery) runs again on the fallback connection, after the pipelined mark: its NOSCRIPT
      // reply comes before the mark's, so by then the flag is set, and the shards are marked again
      // once every write ran (the newer stamps are the ones the write-back gets).
      stamps = mark(commands, marks).thenCompose(pipelined -> writesResent.get()
          ? CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0])).thenCompose(v -> mark(fallback, marks))
          : CompletableFuture.completedFuture(pipelined));
    }
    all.add(stamps);
    pipeline.flushCommands();
    metrics.roundTrip(writes.size() + checks.size() + (cluster ? marks.size() : Math.min(1, marks.size())),
        checks.size());
    return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0]))
        .thenApply(v -> assemble(batch, calls, writes, checks))
        .whenComplete((outcome, error) -> {
          if (error != null) {
            metrics.failedRoundTrip();
          }
          sink.batchFinished(outcome == null ? List.of() : applied(batch, outcome, stamps.join()));
        });
  }

  private int shard(long uid) {
    return RedisKeys.recoveryShard(uid, config.recoveryShards());
  }

  /**
   * Queues {@code mark_recovery} on {@code on}: one call for every shard on a single server, one call
   * per shard in a cluster (each shard's keys have a slot of their own); completes with each shard's stamp.
   */
  private CompletableFuture<Map<Integer, Long>> mark(RedisClusterAsyncCommands<byte[], byte[]> on,
      Map<Integer, List<byte[]>> marks) {
    if (marks.isEmpty()) {
      return CompletableFuture.completedFuture(Map.of());
    }
    List<List<Integer>> calls = cluster ? marks.keySet().stream().map(List::of).toList()
        : List.of(List.copyOf(marks.keySet()));
    List<CompletableFuture<List<Object>>> answers = new ArrayList<>(calls.size());
    for (List<Integer> shards : calls) {
      byte[][] callKeys = new byte[2 * shards.size()][];
      List<byte[]> args = new ArrayList<>();
      int k = 0;
      for (int shard : shards) {
        callKeys[k++] = keys.recovery(shard);
        callKeys[k++] = keys.recoveryClock(shard);
        List<byte[]> members = marks.get(shard);
        args.add(Scripts.num(members.size()));
        args.addAll(members);
      }
      answers.add(Scripts.eval(on, fallback, RedisScript.MARK_RECOVERY, ScriptOutputType.MULTI, callKeys,
          args.toArray(new byte[0][])));
    }
    return CompletableFuture.allOf(answers.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
      Map<Integer, Long> stamps = new HashMap<>();
      for (int c = 0; c < calls.size(); c++) {
        List<Object> answer = answers.get(c).join();
        for (int i = 0; i < calls.get(c).size(); i++) {
          stamps.put(calls.get(c).get(i), (Long) answer.get(i));
        }
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

  private static BatchOutcome assemble(WriteBatch batch, List<int[]> calls,
      List<CompletableFuture<List<Object>>> writes, List<CompletableFuture<Long>> checks) {
    WriteOutcome[] outcomes = new WriteOutcome[batch.writes().size()];
    for (int c = 0; c < calls.size(); c++) {
      List<Object> reply = writes.get(c).join();
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
      if (p != reply.size()) {
        throw new IllegalStateException("write_history answered " + reply.size() + " values, expected " + p);
      }
    }
    boolean[] firstToday = new boolean[checks.size()];
    for (int i = 0; i < checks.size(); i++) {
      firstToday[i] = checks.get(i).join() != NOT_FIRST;
    }
    return new BatchOutcome(List.of(outcomes), firstToday);
  }

  /** The records Redis applied, each with the stamp of its shard's mark. */
  private List<AppliedRecord> applied(WriteBatch batch, BatchOutcome outcome, Map<Integer, Long> stamps) {
    List<AppliedRecord> applied = new ArrayList<>();
    for (int w = 0; w < batch.writes().size(); w++) {
      WriteOutcome o = outcome.writes().get(w);
      UserWrite write = batch.writes().get(w);
      List<HistoryRecord> records = write.records();
      for (int i = 0; i < records.size(); i++) {
        if (o.applied(i)) {
          applied.add(new AppliedRecord(records.get(i), stamps.get(shard(write.uid()))));
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
