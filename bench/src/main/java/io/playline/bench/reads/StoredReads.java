package io.playline.bench.reads;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.bench.common.HistoryTables;
import io.playline.bench.load.PageQueries;
import io.playline.core.compact.HistoryCompactor;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.store.CompactedIndex;
import io.playline.core.store.HistoryChunks;
import io.playline.core.store.HistoryRowKeys;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.job.config.JobConfig;
import io.playline.job.metrics.JobMetrics;
import io.playline.job.sink.HBaseHistorySink;
import io.playline.proto.v1.ChunkRef;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.HistoryQuery;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ListHistoryRequest;
import io.playline.proto.v1.ListHistoryResponse;
import io.playline.roles.endpoints.Endpoints;
import io.playline.time.Time;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.AdvancedScanResultConsumer;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.AsyncTable;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.jspecify.annotations.Nullable;

/**
 * The reads of {@code bench reads} that reach HBase, and their HBase-alone baselines. Users are
 * written straight into the standalone's history table through the job's HBase sink (as the job
 * persists them; nothing of them is in Redis), in uid blocks of their own:
 *
 * <ul>
 *   <li>{@code cold}: {@code ListHistory} first page of a user whose history is in HBase only. Each
 *       read takes a user nobody is reading, and once answered the bench deletes that user's Redis
 *       keys (timeline, records, tombstones; not timed, but on redis-server's CPU) and puts it back,
 *       so every read warms a cold user. HBase alone: what the warm-up reads — the scan of the
 *       user's row (same batching and time range) and the get of its index row in the chunks table;
 *   <li>{@code deep}: {@code ListHistory} page at a random depth past what Redis holds ({@code
 *       history.redis.max.items}) of a warm user whose older records are live cells; HBase alone:
 *       the scan of the row before the cursor and the index get;
 *   <li>{@code deep-chunks}: the same of users the job's roll-up ({@link HistoryCompactor}) moved
 *       into compressed chunks (the newest {@code history.compact.keep} stay live); HBase alone: the
 *       row scan, the index get and the multi-get of the chunks that hold the page.
 * </ul>
 *
 * Every user has the same records ({@link StoredHistory}), its own uid.
 */
final class StoredReads implements AutoCloseable {
  /** As {@code HBaseTimeline} reads a row: cells per result, results per RPC. */
  private static final int CELLS_PER_RESULT = 256;
  private static final int RESULTS_PER_RPC = 4;

  private final int coldUsers;
  private final int coldItems;
  private final int deepUsers;
  private final int deepItems;
  private final int page;
  private final long coldBase;
  private final long liveBase;
  private final long chunkedBase;
  private final CoreConfig core;
  private final JobConfig job;
  private final byte[] family;
  private final Connection hbase;
  private final AsyncConnection async;
  private final AsyncTable<AdvancedScanResultConsumer> history;
  private final AsyncTable<AdvancedScanResultConsumer> chunks;
  private final RedisConnections redis;
  private final RedisKeys keys;
  private final Queue<Long> idleCold = new ConcurrentLinkedQueue<>();
  private final long now = Time.SYSTEM.millis();
  private final StoredHistory stored;

  /**
   * @param root the standalone's endpoints, read with HBase's ZooKeeper required
   * @param source the settings the standalone runs with ({@code hbase.table}, retention, …)
   */
  StoredReads(Endpoints root, ConfigSource source, long uidBase, int coldUsers, int coldItems, int deepUsers,
      int deepItems, int page, RedisConnections redis, RedisKeys keys) throws Exception {
    this.coldUsers = coldUsers;
    this.coldItems = coldItems;
    this.deepUsers = deepUsers;
    this.deepItems = deepItems;
    this.page = page;
    this.coldBase = uidBase + 20_000_000L;
    this.liveBase = uidBase + 30_000_000L;
    this.chunkedBase = uidBase + 40_000_000L;
    this.redis = redis;
    this.keys = keys;
    this.core = CoreConfig.from(source);
    this.job = JobConfig.from(source, core);
    this.family = job.layout().familyBytes();
    this.stored = new StoredHistory(now, core.maxItemsPerUser(), deepItems, page);
    Configuration conf = HBaseConfiguration.create();
    conf.set(HConstants.ZOOKEEPER_QUORUM, root.hbaseZookeeperQuorum().orElseThrow());
    conf.setInt(HConstants.ZOOKEEPER_CLIENT_PORT, root.hbaseZookeeperPort().orElseThrow());
    this.hbase = ConnectionFactory.createConnection(conf);
    this.async = ConnectionFactory.createAsyncConnection(conf).get(60, TimeUnit.SECONDS);
    this.history = async.getTable(job.table());
    this.chunks = async.getTable(HistoryChunks.table(job.table()));
  }

  /**
   * Writes the users {@code kinds} need through the job's sink, rolls up the chunked ones and, with
   * {@code majorCompact}, has HBase flush and major-compact both tables (as it does on its own
   * schedule), so reads see HFiles rather than a memstore full of fresh cells and the roll-up's
   * delete markers.
   */
  void seed(List<String> kinds, boolean majorCompact) throws Exception {
    boolean deep = kinds.contains("deep") || kinds.contains("deep-chunks");
    if (deep && deepItems < core.maxItemsPerUser() + page + 1) {
      throw new IllegalArgumentException("--deep-items " + deepItems + " leaves no page past the "
          + core.maxItemsPerUser() + " records Redis keeps (history.redis.max.items): give more than "
          + (core.maxItemsPerUser() + page));
    }
    if (kinds.contains("deep-chunks") && deepItems <= job.compaction().rollup().threshold()) {
      throw new IllegalArgumentException("--deep-items " + deepItems + " is not past history.compact.threshold "
          + job.compaction().rollup().threshold() + ": the roll-up would leave those users as they are");
    }
    long start = Time.SYSTEM.nanoTime();
    HBaseHistorySink sink = new HBaseHistorySink(hbase, job, new JobMetrics(new SimpleMeterRegistry(), Time.SYSTEM),
        Time.SYSTEM);
    sink.prepare();
    if (kinds.contains("cold")) {
      List<HistoryRecord> records = stored.records(coldItems);
      for (int u = 0; u < coldUsers; u++) {
        HistoryTables.write(sink, coldBase + u, records);
        idleCold.add(coldBase + u);
      }
    }
    List<HistoryRecord> records = stored.records(deepItems);
    for (int u = 0; deep && u < deepUsers; u++) {
      if (kinds.contains("deep")) {
        HistoryTables.write(sink, liveBase + u, records);
      }
      if (kinds.contains("deep-chunks")) {
        HistoryTables.write(sink, chunkedBase + u, records);
      }
    }
    System.out.printf("  wrote %s into %s through the job's sink in %d ms%n", String.join(", ",
        kinds.contains("cold") ? coldUsers + " cold users x " + coldItems + " items" : "no cold users",
        deep ? deepUsers + " deep users x " + deepItems + " items per deep kind" : "no deep users"), job.table(),
        TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - start));
    if (kinds.contains("deep-chunks")) {
      long rollStart = Time.SYSTEM.nanoTime();
      HistoryCompactor compactor = new HistoryCompactor(hbase, job.layout(), job.compaction().rollup(),
          Time.SYSTEM::millis);
      long moved = 0;
      for (int u = 0; u < deepUsers; u++) {
        HistoryCompactor.Result r = compactor.compact(chunkedBase + u, false);
        if (r.moved() == 0) {
          throw new IllegalStateException("the roll-up moved nothing of user " + (chunkedBase + u) + ": " + r);
        }
        moved += r.moved();
      }
      System.out.printf("  rolled %d users up (%d records into chunks, %d live each) in %d ms%n", deepUsers, moved,
          deepItems - moved / deepUsers, TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - rollStart));
    }
    if (majorCompact) {
      long compactStart = Time.SYSTEM.nanoTime();
      HistoryTables.majorCompact(hbase, job.table());
      HistoryTables.majorCompact(hbase, HistoryChunks.table(job.table()));
      System.out.printf("  HBase flushed and major-compacted %s and its chunks table in %d ms%n", job.table(),
          TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - compactStart));
    }
  }

  /** Every deep user's first page, once: their newest records are then in Redis (warm), as for a reader paging on. */
  void warmDeep(List<String> kinds, Supplier<HistoryGrpc.HistoryStub> stubs) throws Exception {
    List<CompletableFuture<ListHistoryResponse>> pending = new ArrayList<>();
    for (int u = 0; u < deepUsers; u++) {
      for (long base : new long[] {kinds.contains("deep") ? liveBase : -1, kinds.contains("deep-chunks") ? chunkedBase : -1}) {
        if (base >= 0) {
          UnaryAnswer<ListHistoryResponse> a = new UnaryAnswer<>(r -> r.getRecordsCount() == page);
          stubs.get().withDeadlineAfter(60, TimeUnit.SECONDS)
              .listHistory(ListHistoryRequest.newBuilder().setUid(base + u).setLimit(page).build(), a);
          pending.add(a.done);
        }
      }
      if (pending.size() >= 32) {
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
        pending.clear();
      }
    }
    CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
  }

  /** A cold user's first page over the API; the user is made cold again once answered. */
  CompletionStage<?> apiCold(HistoryGrpc.HistoryStub stub) {
    Long uid = idleCold.poll();
    if (uid == null) {
      throw new IllegalStateException("every cold user is being read: give more --cold-users than reads in flight");
    }
    UnaryAnswer<ListHistoryResponse> a =
        new UnaryAnswer<>(r -> r.getRecordsCount() == Math.min(page, coldItems));
    stub.listHistory(ListHistoryRequest.newBuilder().setUid(uid).setLimit(page).build(), a);
    return a.done.whenComplete((v, e) -> cool(uid).whenComplete((n, error) -> idleCold.add(uid)));
  }

  /** A page past Redis of a random deep user ({@code chunked}: a rolled-up one) over the API. */
  CompletionStage<?> apiDeep(HistoryGrpc.HistoryStub stub, boolean chunked) {
    long uid = (chunked ? chunkedBase : liveBase) + ThreadLocalRandom.current().nextInt(deepUsers);
    Cursor cursor = stored.deepPageCursor();
    UnaryAnswer<ListHistoryResponse> a = new UnaryAnswer<>(r -> r.getRecordsCount() == page);
    stub.listHistory(ListHistoryRequest.newBuilder().setUid(uid).setAfter(cursor).setLimit(page).build(), a);
    return a.done;
  }

  /**
   * Over the player stream: {@code stream-cold} players are the cold users (one connection each),
   * asking their first page and made cold again after each answer, before their next query.
   */
  StreamPlayers streamCold() {
    HistoryQuery first = HistoryQuery.newBuilder().setLimit(page).build();
    return new StreamPlayers(coldBase, coldUsers, this::coolAll, new PageQueries() {
      @Override
      public HistoryQuery next(long uid) {
        return first;
      }

      @Override
      public int expectedRecords() {
        return Math.min(page, coldItems);
      }

      @Override
      public CompletionStage<?> answered(long uid) {
        return cool(uid);
      }
    });
  }

  /** Over the player stream: the deep users (one connection each) asking a page at a random depth past Redis. */
  StreamPlayers streamDeep(boolean chunked) {
    return new StreamPlayers(chunked ? chunkedBase : liveBase, deepUsers, () -> { }, new PageQueries() {
      @Override
      public HistoryQuery next(long uid) {
        return HistoryQuery.newBuilder().setAfter(stored.deepPageCursor()).setLimit(page).build();
      }

      @Override
      public int expectedRecords() {
        return page;
      }

      @Override
      public CompletionStage<?> answered(long uid) {
        return CompletableFuture.completedFuture(null);
      }
    });
  }

  /**
   * Who connects for a stream run, what they ask ({@code queries} null: the first page of 20), and
   * what to do before the run ({@code prepare}: e.g. make every cold user cold again, as the
   * queries a closed fleet left in flight may have warmed some after their player went).
   */
  record StreamPlayers(long uidBase, int count, Runnable prepare, @Nullable PageQueries queries) {}

  /** Makes {@code uid} cold again: deletes what a read left of it in Redis. */
  private CompletionStage<Long> cool(long uid) {
    return redis.shared().del(keys.timeline(uid), keys.records(uid), keys.tombstones(uid),
        keys.tombstoneOrder(uid));
  }

  /** Deletes every cold user's Redis keys, and waits until Redis did. */
  private void coolAll() {
    List<CompletableFuture<Long>> deleted = new ArrayList<>();
    for (int u = 0; u < coldUsers; u++) {
      long uid = coldBase + u;
      deleted.add(cool(uid).toCompletableFuture());
    }
    try {
      CompletableFuture.allOf(deleted.toArray(CompletableFuture[]::new)).get(1, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while making the cold users cold again", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("making the cold users cold again failed", e);
    }
  }

  /** HBase alone: a cold user's warm-up reads (the row scan within retention, the index get). */
  CompletionStage<?> hbaseCold() {
    long uid = coldBase + ThreadLocalRandom.current().nextInt(coldUsers);
    return scan(uid, Long.MAX_VALUE).thenCompose(cells -> {
      if (cells != coldItems) {
        throw new IllegalStateException("HBase alone read " + cells + " of the " + coldItems + " cells of " + uid);
      }
      return index(uid);
    });
  }

  /** HBase alone: a deep page's reads (the row scan before the cursor, the index get, the chunks of the page). */
  CompletionStage<?> hbaseDeep(boolean chunked) {
    long uid = (chunked ? chunkedBase : liveBase) + ThreadLocalRandom.current().nextInt(deepUsers);
    long cursorMs = stored.deepPageStart().getViewTimeMs();
    return scan(uid, cursorMs + 1).thenCompose(cells -> index(uid).thenCompose(index -> {
      List<ChunkRef> refs = index.chunks();
      if (chunked == refs.isEmpty()) {
        throw new IllegalStateException("user " + uid + " has " + refs.size() + " chunks");
      }
      // As the read path picks them: newest first, those with records older than the cursor, until they
      // fill a read; the chunk the cursor falls in counts with its share of records past the cursor.
      List<Get> gets = new ArrayList<>();
      int records = 0;
      for (ChunkRef ref : refs) {
        if (records >= 2 * page + 16) {
          break;
        }
        if (ref.getOldestTimeMs() < cursorMs) {
          gets.add(new Get(HistoryChunks.chunkRow(uid, ref)).addColumn(family, HistoryChunks.CHUNK));
          long span = ref.getNewestTimeMs() - ref.getOldestTimeMs();
          records += ref.getNewestTimeMs() < cursorMs || span <= 0 ? ref.getCount()
              : (int) (ref.getCount() * (double) (cursorMs - ref.getOldestTimeMs()) / span);
        }
      }
      return gets.isEmpty() ? CompletableFuture.completedFuture(List.<Result>of()) : chunks.getAll(gets);
    }));
  }

  /** Scans {@code uid}'s row within retention below {@code upperMs} as the read path does; completes with its cell count. */
  private CompletableFuture<Integer> scan(long uid, long upperMs) {
    byte[] row = HistoryRowKeys.row(uid);
    Scan scan = new Scan().withStartRow(row).withStopRow(row, true).addFamily(family).setBatch(CELLS_PER_RESULT)
        .setCaching(RESULTS_PER_RPC);
    try {
      scan.setTimeRange(now - job.layout().maxRetention().toMillis(), upperMs);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
    return history.scanAll(scan).thenApply(results -> results.stream().mapToInt(Result::size).sum());
  }

  private CompletableFuture<CompactedIndex> index(long uid) {
    return chunks.get(new Get(HistoryRowKeys.row(uid)).addFamily(family)).thenApply(CompactedIndex::parse);
  }

  @Override
  public void close() throws IOException {
    async.close();
    hbase.close();
  }
}
