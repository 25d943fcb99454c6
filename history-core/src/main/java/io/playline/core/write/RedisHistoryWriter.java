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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongToIntFunction;
import org.jspecify.annotations.Nullable;

/**
 * Applies a {@link WriteBatch} to Redis in one pipelined round trip: one {@code write_history}
 * script call per {@link CoreConfig#usersPerScript()} user writes (last write wins by view time,
 * tombstones, pause, trim, TTL; each user atomically) and one {@code first_today} script per check
 * (which also leaves the day's event in an outbox).
 *
 * <p>What a batch applied is listed in a recovery log ({@link RecoveryEntry}): one stream entry per
 * call, not a mark per event, in a log shard the writer takes in turn. On a single server each
 * {@code write_history} call appends its entry in the same atomic script, so a batch of up to
 * {@code usersPerScript} users is one script call. In Redis Cluster the log shards have slots of
 * their own: the writes go one call per slot, and one {@code XADD} of everything the batch applied
 * once the writes answered. The write-back deletes an entry once Kafka acknowledged its items;
 * the job's recovery sweep persists the items of entries older than {@code recovery.age}.
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
  private static final byte[] LOG_FIELD = {'m'};
  private final CoreConfig config;
  private final RedisKeys keys;
  private final StatefulConnection<byte[], byte[]> pipeline;
  private final RedisClusterAsyncCommands<byte[], byte[]> commands;
  private final RedisClusterAsyncCommands<byte[], byte[]> fallback;
  private final WriteBackSink sink;
  private final WriteMetrics metrics;
  private final EventExecutor loop;
  private final boolean cluster;
  /** The log shard the next call appends to: each call takes the next, so the sweep's shards share the load. */
  private final AtomicInteger nextLogShard = new AtomicInteger();

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
    int[] logShards = new int[calls.size()];
    for (int c = 0; c < calls.size(); c++) {
      int[] call = calls.get(c);
      logShards[c] = cluster || !hasEvents(userWrites, call) ? -1 : takeLogShard();
      writes.add(Scripts.eval(commands, fallback, RedisScript.WRITE_HISTORY, ScriptOutputType.MULTI,
          writeKeys(userWrites, call, logShards[c]), writeArgs(userWrites, call, logShards[c])));
    }
    List<CompletableFuture<Long>> checks = firstTodayChecks(batch);
    pipeline.flushCommands();
    metrics.roundTrip(writes.size() + checks.size(), checks.size());
    CompletableFuture<Written> written = CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0]))
        .thenApply(v -> assembleWrites(batch, calls, logShards, writes));
    // In a cluster the log's shard lives on another node: its entry goes once the writes answered
    // (whatever the first-today checks answer), on the auto-flushing connection, listing what they
    // applied.
    if (cluster) {
      written = written.thenCompose(this::logInCluster);
    }
    return written.thenCombine(CompletableFuture.allOf(checks.toArray(new CompletableFuture<?>[0])),
            (done, v) -> new Answer(new BatchOutcome(List.of(done.outcomes()), firstToday(checks)), done.applied()))
        .whenComplete((done, error) -> {
          if (error != null) {
            metrics.failedRoundTrip();
          }
          sink.batchFinished(done == null ? List.of() : done.applied());
        })
        .thenApply(Answer::outcome);
  }

  private int takeLogShard() {
    // Atomic although the writer is confined: in a cluster the entry is taken in the writes' callback.
    return nextLogShard.getAndUpdate(s -> (s + 1) % config.recoveryShards());
  }

  private static boolean hasEvents(List<UserWrite> userWrites, int[] call) {
    for (int w : call) {
      if (!userWrites.get(w).records().isEmpty()) {
        return true;
      }
    }
    return false;
  }

  private byte[][] writeKeys(List<UserWrite> userWrites, int[] call, int logShard) {
    byte[][] callKeys = new byte[4 * call.length + (logShard >= 0 ? 1 : 0)][];
    int k = 0;
    for (int w : call) {
      long uid = userWrites.get(w).uid();
      callKeys[k++] = keys.timeline(uid);
      callKeys[k++] = keys.records(uid);
      callKeys[k++] = keys.tombstones(uid);
      callKeys[k++] = keys.paused(uid);
    }
    if (logShard >= 0) {
      callKeys[k] = keys.recoveryLog(logShard);
    }
    return callKeys;
  }

  /** write_history.lua's ARGV: the call logs what it applied when it has a log shard. */
  private byte[][] writeArgs(List<UserWrite> userWrites, int[] call, int logShard) {
    int argc = 3;
    for (int w : call) {
      argc += 2 + 3 * userWrites.get(w).records().size();
    }
    byte[][] args = new byte[argc][];
    args[0] = Scripts.num(config.maxItemsPerUser());
    args[1] = Scripts.num(config.redisHistoryTtl().toMillis());
    args[2] = Scripts.num(logShard >= 0 ? 1 : 0);
    int i = 3;
    for (int w : call) {
      UserWrite write = userWrites.get(w);
      args[i++] = Scripts.num(write.records().size());
      args[i++] = Scripts.num(write.uid());
      for (HistoryRecord r : write.records()) {
        args[i++] = RedisKeys.member(r.getBusiness(), r.getOid());
        args[i++] = Scripts.num(r.getViewTimeMs());
        args[i++] = r.toByteArray();
      }
    }
    return args;
  }

  /**
   * Redis Cluster: appends one entry listing everything the batch applied to the next log shard,
   * on the auto-flushing connection; the answer's records then carry that entry.
   */
  private CompletableFuture<Written> logInCluster(Written written) {
    List<AppliedRecord> applied = written.applied();
    if (applied.isEmpty()) {
      return CompletableFuture.completedFuture(written);
    }
    StringBuilder members = new StringBuilder(applied.size() * 24);
    for (AppliedRecord a : applied) {
      HistoryRecord r = a.record();
      if (members.length() > 0) {
        members.append(' ');
      }
      RedisKeys.appendRecoveryMember(members, r.getUid(), r.getBusinessValue(), r.getOid());
    }
    int shard = takeLogShard();
    metrics.roundTrip(1, 0); // the XADD: a round trip of its own, to the log shard's node
    return fallback.xadd(keys.recoveryLog(shard), LOG_FIELD, RedisKeys.bytes(members.toString()))
        .toCompletableFuture().thenApply(id -> {
          RecoveryEntry entry = new RecoveryEntry(shard, id);
          List<AppliedRecord> logged = new ArrayList<>(applied.size());
          for (AppliedRecord a : applied) {
            logged.add(new AppliedRecord(a.record(), entry));
          }
          return new Written(written.outcomes(), logged);
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

  /** A batch's outcome with the records Redis applied, each with its recovery-log entry. */
  private record Answer(BatchOutcome outcome, List<AppliedRecord> applied) {}

  /** What the write calls answered: per user write its outcome, and the records applied with their entry. */
  private record Written(WriteOutcome[] outcomes, List<AppliedRecord> applied) {}

  private Written assembleWrites(WriteBatch batch, List<int[]> calls, int[] logShards,
      List<CompletableFuture<List<Object>>> writes) {
    WriteOutcome[] outcomes = new WriteOutcome[batch.writes().size()];
    List<AppliedRecord> applied = new ArrayList<>();
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
      int logged = logShards[c] >= 0 ? 1 : 0;
      if (p + logged != reply.size()) {
        throw new IllegalStateException("write_history answered " + reply.size() + " values, expected " + (p + logged));
      }
      // The entry's id, or 0 when the call applied nothing (and logged nothing).
      RecoveryEntry entry = logged == 1 && reply.get(p) instanceof byte[] id
          ? new RecoveryEntry(logShards[c], new String(id, StandardCharsets.US_ASCII)) : null;
      for (int w : calls.get(c)) {
        WriteOutcome o = outcomes[w];
        List<HistoryRecord> records = batch.writes().get(w).records();
        for (int i = 0; i < records.size(); i++) {
          if (o.applied(i)) {
            applied.add(new AppliedRecord(records.get(i), entry));
          }
        }
      }
    }
    return new Written(outcomes, applied);
  }

  private static boolean[] firstToday(List<CompletableFuture<Long>> checks) {
    boolean[] firstToday = new boolean[checks.size()];
    for (int i = 0; i < checks.size(); i++) {
      firstToday[i] = checks.get(i).join() != NOT_FIRST;
    }
    return firstToday;
  }

  @Override
  public void close() {
    pipeline.close();
  }
}
