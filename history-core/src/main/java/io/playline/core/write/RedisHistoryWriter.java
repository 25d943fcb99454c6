package io.playline.core.write;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Applies a {@link WriteBatch} to Redis in one pipelined round trip: one {@code write_history}
 * script per user write (last write wins by view time, tombstones, pause, trim, TTL), one
 * recovery-mark {@code ZADD} per touched shard, one {@code first_today} script per check.
 *
 * <p>Not thread-safe: owns a pipelining connection and must be called from one thread at a time,
 * best from {@link #eventLoop()} (the Redis I/O loop), where the write goes straight to the
 * socket and the answer completes on the same thread.
 */
public final class RedisHistoryWriter implements HistoryWriter, AutoCloseable {
  private final CoreConfig config;
  private final RedisKeys keys;
  private final StatefulConnection<byte[], byte[]> pipeline;
  private final RedisClusterAsyncCommands<byte[], byte[]> commands;
  private final RedisClusterAsyncCommands<byte[], byte[]> fallback;
  private final WriteBackSink sink;
  private final WriteMetrics metrics;
  private final EventExecutor loop;

  public RedisHistoryWriter(CoreConfig config, RedisConnections redis, WriteBackSink sink, WriteMetrics metrics) {
    this.config = config;
    this.keys = new RedisKeys(config.redisKeyPrefix());
    this.pipeline = redis.newPipeline();
    this.commands = RedisConnections.commands(pipeline);
    this.fallback = redis.shared();
    this.sink = sink;
    this.metrics = metrics;
    this.loop = redis.ioLoop();
  }

  @Override
  public EventExecutor eventLoop() {
    return loop;
  }

  @Override
  public CompletionStage<BatchOutcome> write(WriteBatch batch) {
    long nowMs = batch.nowMs();
    sink.batchStarted(nowMs);
    List<CompletableFuture<List<Object>>> writes = new ArrayList<>(batch.writes().size());
    Map<Integer, List<Object>> marks = new HashMap<>();
    byte[] maxItems = Scripts.num(config.maxItemsPerUser());
    byte[] ttl = Scripts.num(config.redisHistoryTtl().toMillis());
    for (UserWrite w : batch.writes()) {
      long uid = w.uid();
      byte[][] userKeys = {keys.timeline(uid), keys.records(uid), keys.tombstones(uid), keys.paused(uid)};
      byte[][] args = new byte[2 + 3 * w.records().size()][];
      args[0] = maxItems;
      args[1] = ttl;
      int i = 2;
      List<Object> shardMarks =
          marks.computeIfAbsent(RedisKeys.recoveryShard(uid, config.recoveryShards()), s -> new ArrayList<>());
      for (HistoryRecord r : w.records()) {
        byte[] member = RedisKeys.member(r.getBusiness(), r.getOid());
        args[i++] = member;
        args[i++] = Scripts.num(r.getViewTimeMs());
        args[i++] = r.toByteArray();
        shardMarks.add((double) nowMs);
        shardMarks.add(RedisKeys.recoveryMember(uid, member));
      }
      writes.add(Scripts.eval(commands, fallback, RedisScript.WRITE_HISTORY, ScriptOutputType.MULTI, userKeys, args));
    }
    List<CompletableFuture<?>> all = new ArrayList<>(writes);
    for (Map.Entry<Integer, List<Object>> e : marks.entrySet()) {
      // Score-then-member pairs: marks carry the server write time, for the recovery sweep.
      all.add(commands.zadd(keys.recovery(e.getKey()), e.getValue().toArray()).toCompletableFuture());
    }
    List<CompletableFuture<Long>> checks = new ArrayList<>(batch.firstTodayUids().size());
    for (long uid : batch.firstTodayUids()) {
      byte[][] ftKey = {keys.firstToday(batch.day(), uid, config.firstTodayShards())};
      checks.add(Scripts.eval(commands, fallback, RedisScript.FIRST_TODAY, ScriptOutputType.INTEGER, ftKey,
          Scripts.num(RedisKeys.firstTodayBit(uid, config.firstTodayShards())), Scripts.num(batch.expiryMs())));
    }
    all.addAll(checks);
    pipeline.flushCommands();
    metrics.roundTrip(all.size(), batch.firstTodayUids().size());
    return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0]))
        .thenApply(v -> assemble(batch, writes, checks))
        .whenComplete((outcome, error) -> {
          if (error != null) {
            metrics.failedRoundTrip();
          }
          sink.batchFinished(nowMs, outcome == null ? List.of() : applied(batch, outcome));
        });
  }

  private static BatchOutcome assemble(WriteBatch batch, List<CompletableFuture<List<Object>>> writes,
      List<CompletableFuture<Long>> checks) {
    List<WriteOutcome> outcomes = new ArrayList<>(writes.size());
    for (int w = 0; w < writes.size(); w++) {
      List<Object> reply = writes.get(w).join();
      int n = batch.writes().get(w).records().size();
      if (reply.size() != n + 1) {
        throw new IllegalStateException("write_history answered " + reply.size() + " values for " + n + " records");
      }
      byte[] codes = new byte[n];
      for (int i = 0; i < n; i++) {
        codes[i] = (byte) ((Long) reply.get(i + 1)).intValue();
      }
      outcomes.add(new WriteOutcome(((Long) reply.get(0)) == 1L, codes));
    }
    boolean[] firstToday = new boolean[checks.size()];
    for (int i = 0; i < checks.size(); i++) {
      firstToday[i] = checks.get(i).join() == 0L;
    }
    return new BatchOutcome(outcomes, firstToday);
  }

  private static List<HistoryRecord> applied(WriteBatch batch, BatchOutcome outcome) {
    List<HistoryRecord> applied = new ArrayList<>();
    for (int w = 0; w < batch.writes().size(); w++) {
      WriteOutcome o = outcome.writes().get(w);
      List<HistoryRecord> records = batch.writes().get(w).records();
      for (int i = 0; i < records.size(); i++) {
        if (o.applied(i)) {
          applied.add(records.get(i));
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
