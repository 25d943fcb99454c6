package io.playline.job.recover;

import io.lettuce.core.RedisException;
import io.lettuce.core.api.StatefulConnection;
import io.playline.core.config.CoreConfig;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.core.store.RetriableStoreException;
import io.playline.job.config.JobConfig;
import io.playline.job.metrics.JobMetrics;
import io.playline.job.redis.RecoveryMarks;
import io.playline.job.redis.RedisReadBack;
import io.playline.job.redis.RedisShardLeases;
import io.playline.job.sink.HistorySink;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import io.playline.time.FixedDelay;
import io.playline.time.Time;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Persists what a crash left unpersisted. Every write-through call leaves an entry in a recovery
 * log listing the items it applied, which the writing node deletes once Kafka acknowledged the
 * write-back records carrying them; every delete or clear leaves a recovery mark, scored by the
 * shard's Redis-issued stamp, that the consumer loop clears once its tombstones are in HBase. An
 * entry or mark older than {@code recovery.age} (by Redis's clock) therefore means the write-back
 * never made it (the node holding it in memory died, or gave up while Kafka was down). Every {@code
 * recovery.interval}, for each shard, the sweep reads such marks, then such log entries, a page at
 * a time, reads the items' current records (and, for a delete's or clear's mark, all of the user's
 * tombstones) from Redis, writes them to the sink and removes what it persisted: marks up to the
 * page's threshold (a mark rescored by a newer call survives), log entries by id (a newer write has
 * an entry of its own). An item whose record is gone from Redis is just dropped. (Item marks in the
 * sorted sets are what releases before the log wrote; the sweep drains them the same way.)
 *
 * <p>Job instances split the shards with leases in Redis ({@link ShardLeases}): each sweep first
 * advertises this instance, renews its leases and evens out its share with the other live
 * instances, then sweeps only the shards it holds, renewing a shard's lease before each page. A
 * lone instance holds every shard; one that dies stops renewing, and its shards go to the others
 * after {@code recovery.lease.ttl}; {@link #close()} releases them at once.
 *
 * <p>Sweeps, and so all lease bookkeeping, run on the sweeper's own thread ({@link #start()}) or
 * on the caller's ({@link #sweep()}); they never overlap, and block only that thread. Thread-safe.
 */
public final class RecoverySweeper implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RecoverySweeper.class);

  /** What one sweep did. */
  public record SweepResult(int marks, int recovered, int missing, long cleared) {
    SweepResult plus(SweepResult o) {
      return new SweepResult(marks + o.marks, recovered + o.recovered, missing + o.missing, cleared + o.cleared);
    }
  }

  private final JobConfig config;
  private final CoreConfig core;
  private final RedisConnections redis;
  private final HistorySink sink;
  private final JobMetrics metrics;
  private final BooleanSupplier sinkReady;
  private final ScheduledExecutorService scheduler;
  private final Time time;
  private @Nullable FixedDelay sweeps;
  private final ShardLeases leases;
  private @Nullable StatefulConnection<byte[], byte[]> pipeline;
  private @Nullable RedisReadBack readBack;
  private @Nullable RecoveryMarks marks;
  private @Nullable RedisShardLeases leaseStore;

  /**
   * {@code sinkReady} gates scheduled sweeps until the sink is prepared (e.g. the table exists);
   * sweeps, leases and Redis round trips are timed by {@code time}.
   */
  public RecoverySweeper(JobConfig config, CoreConfig core, RedisConnections redis, HistorySink sink,
      JobMetrics metrics, BooleanSupplier sinkReady, Time time) {
    this.time = time;
    this.config = config;
    this.core = core;
    this.redis = redis;
    this.sink = sink;
    this.metrics = metrics;
    this.sinkReady = sinkReady;
    this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "playline-job-recovery"));
    this.leases = new ShardLeases(config.instanceId(), core.recoveryShards(), config.recoveryLeaseTtl(), metrics,
        time);
  }

  /** Schedules a sweep every {@code recovery.interval}, the first one interval from now. */
  public void start() {
    long periodMs = config.recoveryInterval().toMillis();
    sweeps = FixedDelay.start(time, scheduler, this::scheduledSweep, periodMs, periodMs, TimeUnit.MILLISECONDS);
    log.info("Recovery sweep every {} of marks older than {} over this instance's share of {} shards (lease owner "
        + "{}, lease TTL {})", config.recoveryInterval(), config.recoveryAge(), core.recoveryShards(), leases.owner(),
        config.recoveryLeaseTtl());
  }

  private void scheduledSweep() {
    if (!sinkReady.getAsBoolean()) {
      log.debug("Recovery sweep skipped: the sink is not prepared yet");
      return;
    }
    try {
      sweep();
    } catch (RetriableStoreException e) {
      metrics.sweepFailure();
      log.warn("Recovery sweep stopped; the next one in {} retries: {}", config.recoveryInterval(), e.toString());
    } catch (RuntimeException e) {
      metrics.sweepFailure();
      log.error("Recovery sweep failed; the next one in {} tries again", config.recoveryInterval(), e);
    }
  }

  /** The shards this sweeper held a lease on at its last renewal, ascending. Any thread; never blocks. */
  public Set<Integer> ownedShards() {
    return new TreeSet<>(leases.owned());
  }

  /** The id this sweeper's leases hold in Redis: {@code job.instance.id} plus a random suffix. */
  String leaseOwner() {
    return leases.owner();
  }

  /**
   * Runs one sweep now, on the calling thread, with marks older than {@code recovery.age} before
   * now: first renews and rebalances this instance's shard leases, then sweeps the shards it holds
   * (every shard when no other instance is live); returns what it did.
   *
   * @throws RetriableStoreException when Redis or the sink failed for now; marks not yet cleared
   *     stay for the next sweep
   */
  public synchronized SweepResult sweep() {
    RedisShardLeases store = open();
    List<Integer> shards = leases.rebalance(store);
    SweepResult total = new SweepResult(0, 0, 0, 0);
    for (int shard : shards) {
      total = total.plus(sweepShard(store, shard));
    }
    metrics.sweep();
    metrics.sweptShards(shards.size());
    if (total.recovered() > 0 || total.missing() > 0) {
      log.info("Recovery sweep persisted {} records and tombstones whose write-back never arrived ({} marks, {} "
          + "records gone from Redis, {} marks cleared)", total.recovered(), total.marks(), total.missing(), total.cleared());
    } else {
      log.debug("Recovery sweep found nothing older than {}", config.recoveryAge());
    }
    return total;
  }

  private SweepResult sweepShard(RedisShardLeases store, int shard) {
    RecoveryMarks m = marks;
    SweepResult total = new SweepResult(0, 0, 0, 0);
    // The lease is renewed before every page: a lost one stops the sweep of its shard here.
    while (m != null && leases.hold(store, shard)) {
      RecoveryMarks.Due due = m.due(shard, config.recoveryAge(), config.recoveryBatchSize());
      List<byte[]> page = due.members();
      if (page.isEmpty()) {
        break;
      }
      SweepResult done = persistPage(m, shard, page, due.thresholdUs());
      total = total.plus(done);
      // A short page was the last; a page that cleared nothing would only come back unchanged.
      if (page.size() < config.recoveryBatchSize() || done.cleared() == 0) {
        break;
      }
    }
    while (m != null && leases.hold(store, shard)) {
      int batch = config.recoveryBatchSize();
      List<RecoveryMarks.LogEntry> due = m.dueLog(shard, config.recoveryAge(), batch);
      if (due.isEmpty()) {
        break;
      }
      // An entry lists a whole write call: a page ends once it holds recovery.batch.size items (at
      // least one entry), and the next page reads on from the entries left.
      List<RecoveryMarks.LogEntry> page = new ArrayList<>();
      int pageItems = 0;
      for (RecoveryMarks.LogEntry entry : due) {
        if (!page.isEmpty() && pageItems + entry.members().size() > batch) {
          break;
        }
        page.add(entry);
        pageItems += entry.members().size();
      }
      SweepResult done = persistLogPage(m, shard, page);
      total = total.plus(done);
      if ((page.size() == due.size() && due.size() < batch) || done.cleared() == 0) {
        break;
      }
    }
    return total;
  }

  private SweepResult persistPage(RecoveryMarks m, int shard, List<byte[]> page, long threshold) {
    Map<Long, List<ItemKey>> items = new LinkedHashMap<>();
    Set<Long> controlled = new LinkedHashSet<>();
    RecoveryMarks.Clears clears = m.newClears();
    for (byte[] member : page) {
      clears.addRaw(shard, member, threshold);
      addMark(shard, member, items, controlled);
    }
    int[] recoveredMissing = persist(items, controlled);
    long cleared = m.clear(clears);
    metrics.marksClearedBySweep(cleared);
    return new SweepResult(page.size(), recoveredMissing[0], recoveredMissing[1], cleared);
  }

  /** Persists the items a page of recovery-log entries lists, then deletes those entries. */
  private SweepResult persistLogPage(RecoveryMarks m, int shard, List<RecoveryMarks.LogEntry> page) {
    Map<Long, List<ItemKey>> items = new LinkedHashMap<>();
    Set<Long> controlled = new LinkedHashSet<>();
    List<String> ids = new ArrayList<>(page.size());
    Set<ByteBuffer> seen = new HashSet<>();
    int marked = 0;
    for (RecoveryMarks.LogEntry entry : page) {
      ids.add(entry.id());
      if (entry.malformed() != null) {
        metrics.invalidEntry();
        log.warn("Deleting malformed recovery-log entry {} of shard {}: {}", entry.id(), shard, entry.malformed());
      }
      for (byte[] member : entry.members()) {
        marked++;
        // An item written every few seconds is listed by many entries: read and persist it once.
        if (seen.add(ByteBuffer.wrap(member))) {
          addMark(shard, member, items, controlled);
        }
      }
    }
    int[] recoveredMissing = persist(items, controlled);
    long cleared = m.deleteLog(shard, ids);
    metrics.marksClearedBySweep(cleared);
    return new SweepResult(marked, recoveredMissing[0], recoveredMissing[1], cleared);
  }

  /** Adds one mark to what a page persists: an item of {@code items}, or a user whose tombstones go. */
  private void addMark(int shard, byte[] member, Map<Long, List<ItemKey>> items, Set<Long> controlled) {
    try {
      RecoveryMarks.Mark mark = RecoveryMarks.parse(member);
      if (mark.control()) {
        controlled.add(mark.uid());
      } else {
        RedisReadBack.add(items, mark.uid(), mark.item());
      }
    } catch (IllegalArgumentException e) {
      metrics.invalidEntry();
      log.warn("Clearing malformed recovery mark in shard {}: {}", shard, e.getMessage());
    }
  }

  /**
   * Writes the current records of {@code items} and all tombstones of {@code controlled} users to the
   * sink; returns {recovered, missing}: what it wrote, and the items whose record left Redis.
   */
  private int[] persist(Map<Long, List<ItemKey>> items, Set<Long> controlled) {
    // Tombstones first: the sink applies a change's deletes before its upserts, and HBase by time.
    List<HistoryChange> writes = new ArrayList<>(readBack().tombstones(controlled));
    int recovered = writes.stream().mapToInt(c -> c.getDeletesCount() + c.getClearsCount()).sum();
    Map<Long, Map<ItemKey, HistoryRecord>> found = readBack().read(items);
    int missing = 0;
    for (Map.Entry<Long, List<ItemKey>> e : items.entrySet()) {
      Map<ItemKey, HistoryRecord> records = found.getOrDefault(e.getKey(), Map.of());
      for (ItemKey item : e.getValue()) {
        if (!records.containsKey(item)) {
          missing++;
          metrics.missingRecord();
          log.debug("Recovery mark of uid {} item {}:{} has no record in Redis any more; clearing it", e.getKey(),
              item.getBusinessValue(), item.getOid());
        }
      }
      if (!records.isEmpty()) {
        recovered += records.size();
        writes.add(HistoryChange.newBuilder().setUid(e.getKey()).addAllUpserts(records.values()).build());
      }
    }
    if (!writes.isEmpty()) {
      sink.write(writes);
      metrics.recovered(recovered);
    }
    return new int[] {recovered, missing};
  }

  private RedisReadBack readBack() {
    RedisReadBack r = readBack;
    if (r == null) {
      throw new IllegalStateException("sweep before open()");
    }
    return r;
  }

  /** Opens the sweeper's pipelining connection on first use (Redis may have been down at start). */
  private RedisShardLeases open() {
    RedisShardLeases opened = leaseStore;
    if (opened != null) {
      return opened;
    }
    StatefulConnection<byte[], byte[]> p;
    try {
      p = redis.newPipeline();
    } catch (RedisException e) {
      throw new RetriableStoreException("Redis connect for the recovery sweep failed", e);
    }
    RedisKeys keys = new RedisKeys(core.redisKeyPrefix());
    pipeline = p;
    readBack = new RedisReadBack(p, keys, config.redisTimeout(), time);
    marks = new RecoveryMarks(p, redis.shared(), keys, core.recoveryShards(), config.redisTimeout(), time);
    opened = new RedisShardLeases(p, redis.shared(), keys, config.redisTimeout(), time);
    leaseStore = opened;
    return opened;
  }

  /**
   * Stops scheduling and waits up to {@code job.shutdown.timeout} for a running sweep (whose marks
   * not yet cleared stay for the next process), then releases its shard leases, so other instances
   * take its shards over at their next tick, and its Redis connection.
   */
  @Override
  public void close() {
    FixedDelay s = sweeps;
    if (s != null) {
      s.cancel(); // first: a shut-down scheduler still runs the delayed tasks it holds
    }
    scheduler.shutdown();
    boolean stopped = false;
    try {
      stopped = scheduler.awaitTermination(config.shutdownTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!stopped) {
      // Its connection stays open for RedisConnections.close(); every call of a sweep is bounded.
      log.warn("A recovery sweep still runs after {}; interrupting it", config.shutdownTimeout());
      scheduler.shutdownNow();
      return;
    }
    closePipeline(true);
  }

  /**
   * Stops this sweeper as a crash would: no more sweeps, and its leases and its entry among the
   * live instances are left to expire after {@code recovery.lease.ttl}. For tests.
   */
  void crash() {
    scheduler.shutdownNow();
    closePipeline(false);
  }

  private synchronized void closePipeline(boolean releaseLeases) {
    StatefulConnection<byte[], byte[]> p = pipeline;
    RedisShardLeases store = leaseStore;
    if (p == null || store == null) {
      return;
    }
    try {
      if (releaseLeases) {
        leases.releaseAll(store);
      }
    } catch (RetriableStoreException e) {
      log.warn("Releasing the recovery shard leases failed; they lapse after {}: {}", config.recoveryLeaseTtl(),
          e.toString());
    } finally {
      leases.abandon();
      p.close();
      pipeline = null;
      readBack = null;
      marks = null;
      leaseStore = null;
    }
  }
}
