package io.playline.bench.heavy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.bench.common.BenchSettings;
import io.playline.bench.common.EndpointsOption;
import io.playline.bench.common.HistoryTables;
import io.playline.bench.common.MajorCompactOption;
import io.playline.bench.common.PageOption;
import io.playline.core.compact.HistoryCompactor;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.query.TieredHistoryService;
import io.playline.core.query.TombstoneSink;
import io.playline.core.store.HBaseClient;
import io.playline.core.store.HistoryChunks;
import io.playline.core.store.HistoryRowKeys;
import io.playline.core.store.RedisConnections;
import io.playline.job.config.JobConfig;
import io.playline.job.metrics.JobMetrics;
import io.playline.job.sink.HBaseHistorySink;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import io.playline.roles.endpoints.Endpoints.Field;
import io.playline.roles.endpoints.Endpoints;
import io.playline.time.Time;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bin/playline bench heavy}: what a heavy user costs, with and without compaction, next to an
 * ordinary user, on a running standalone's real Redis and HBase (in tables and keys of its own,
 * removed at the end). Three users get the same kind of history: H (heavy, rolled up into chunks),
 * U (the same records, never rolled up: live cells only, as before compaction) and O (ordinary).
 * Records are written through the job's HBase sink; H is rolled up by the job's {@link
 * HistoryCompactor}; pages are read through history-core's {@link TieredHistoryService} in this
 * process (the API's read path without its gRPC hop), one at a time. Reported: storage bytes per
 * record (live cells vs chunks), the roll-up's time per 10 000 records, and per page kind (first
 * page warm, first page cold, the page after Redis, a page deep in the history) p50/p99 latency and
 * the HBase bytes and chunks one page read. Control thread only.
 */
@Command(name = "heavy", mixinStandardHelpOptions = true,
    description = {"A heavy user's pages and storage with and without compaction (roll-up into compressed chunks),",
        "next to an ordinary user, on a running standalone's Redis and HBase (own tables and keys, removed after)."})
public final class HeavyCommand implements Callable<Integer> {
  private static final long DAY = Duration.ofDays(1).toMillis();
  private static final Business[] BUSINESSES = {Business.VIDEO, Business.EPISODE, Business.ARTICLE, Business.COMIC,
      Business.AUDIO};

  @Mixin EndpointsOption endpoints = new EndpointsOption();
  // --items and --set are this command's own, not common/ mixins: bench reads' --items (100) are each seeded
  // user's, and its --set tells the bench what the standalone runs with, where this one configures the run.
  @Option(names = "--items", defaultValue = "100000", description = "Items of the heavy user (default: ${DEFAULT-VALUE}).")
  int items;
  @Option(names = "--ordinary", defaultValue = "300", description = "Items of the ordinary user (default: ${DEFAULT-VALUE}).")
  int ordinary;
  @Option(names = "--days", defaultValue = "89", description = "Days the histories span (default: ${DEFAULT-VALUE}).")
  int days;
  @Option(names = "--samples", defaultValue = "200", description = "Pages read per kind and user (default: ${DEFAULT-VALUE}).")
  int samples;
  @Mixin PageOption pages = new PageOption();
  @Mixin MajorCompactOption compaction = new MajorCompactOption();
  @Option(names = "--set", paramLabel = "KEY=VALUE", description = "A Playline setting for this run (e.g. history.compact.keep=1000).")
  Map<String, String> settings = Map.of();

  private record Row(String user, String kind, Histogram latency, double bytesPerPage, double chunksPerPage,
      int records) {}

  @Override
  public Integer call() throws Exception {
    Endpoints root = Endpoints.read(endpoints.file(BenchSettings.load(settings)),
        Field.REDIS_URI, Field.HBASE_ZOOKEEPER_QUORUM, Field.HBASE_ZOOKEEPER_PORT);
    String redisUri = root.redisUri().orElseThrow();
    String run = "benchheavy" + Integer.toString(ThreadLocalRandom.current().nextInt(1 << 30), 36);
    Map<String, String> all = new java.util.HashMap<>(settings);
    all.putIfAbsent("hbase.table", run + ":history");
    all.putIfAbsent("hbase.table.regions", "4");
    all.put("redis.key.prefix", run + ":");
    ConfigSource source = ConfigSource.empty().with(all);
    CoreConfig core = CoreConfig.from(source);
    JobConfig job = JobConfig.from(source, core);
    Configuration conf = HBaseConfiguration.create();
    conf.set(HConstants.ZOOKEEPER_QUORUM, root.hbaseZookeeperQuorum().orElseThrow());
    conf.setInt(HConstants.ZOOKEEPER_CLIENT_PORT, root.hbaseZookeeperPort().orElseThrow());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    System.out.printf("Playline bench heavy: heavy user %d items, ordinary %d, over %d days; pages of %d, %d samples "
        + "per kind; roll-up threshold %d keep %d chunk %d B; redis.max.items %d, query.hbase.max.items %d; tables %s%n",
        items, ordinary, days, pages.page(), samples, job.compaction().rollup().threshold(),
        job.compaction().rollup().keep(), job.compaction().rollup().chunkBytes(), core.maxItemsPerUser(),
        core.query().hbaseMaxItems(), job.table());
    try (Connection hbase = ConnectionFactory.createConnection(conf);
        AsyncConnection async = ConnectionFactory.createAsyncConnection(conf).get(60, TimeUnit.SECONDS);
        RedisConnections redis = RedisConnections.connect(redisUri, false, Duration.ofSeconds(10))) {
      HBaseHistorySink sink = new HBaseHistorySink(hbase, job, new JobMetrics(registry, Time.SYSTEM), Time.SYSTEM);
      try {
        sink.prepare();
        long now = Time.SYSTEM.millis();
        long heavy = 1;
        long unrolled = 2;
        long light = 3;
        List<HistoryRecord> records = history(items, now);
        long seedStart = Time.SYSTEM.nanoTime();
        HistoryTables.write(sink, heavy, records);
        HistoryTables.write(sink, unrolled, records);
        HistoryTables.write(sink, light, history(ordinary, now));
        System.out.printf("Seeded 2 x %d + %d records through the job's sink in %.1f s%n", items, ordinary,
            (Time.SYSTEM.nanoTime() - seedStart) / 1e9);
        long liveBytes = rowBytes(hbase, job.table(), unrolled);
        HistoryCompactor compactor = new HistoryCompactor(hbase, job.layout(), job.compaction().rollup(),
            Time.SYSTEM::millis);
        long rollStart = Time.SYSTEM.nanoTime();
        HistoryCompactor.Result rolled = compactor.compact(heavy, false);
        double rollSeconds = (Time.SYSTEM.nanoTime() - rollStart) / 1e9;
        System.out.printf("Storage: live cells %.1f B/record (row %d B, %d records); chunks %.1f B/record stored "
            + "(%.1f raw: zstd %.1fx), %d chunks of %d records%n", (double) liveBytes / items, liveBytes, items,
            (double) rolled.storedBytes() / rolled.chunked(), (double) rolled.rawBytes() / rolled.chunked(),
            (double) rolled.rawBytes() / rolled.storedBytes(), rolled.chunks(), rolled.chunked());
        System.out.printf("Roll-up: %s, %d live cells read, %d moved, %d left live, in %.2f s = %.2f s per 10 000 "
            + "records%n", rolled.outcome(), rolled.live(), rolled.moved(), rolled.live() - rolled.moved(), rollSeconds,
            rollSeconds / (rolled.live() / 10_000.0));

        // The steady state: the next roll-up after another threshold - keep newer records.
        int more = job.compaction().rollup().threshold() - job.compaction().rollup().keep() + 1;
        List<HistoryRecord> newer = new ArrayList<>(more);
        for (int i = 0; i < more; i++) {
          newer.add(records.get(0).toBuilder().setOid(20_000_000L + i).setViewTimeMs(now + 1 + i).build());
        }
        HistoryTables.write(sink, heavy, newer);
        HistoryTables.write(sink, unrolled, newer);
        List<HistoryRecord> timeline = new ArrayList<>(newer);
        java.util.Collections.reverse(timeline);
        timeline.addAll(records);
        long againStart = Time.SYSTEM.nanoTime();
        HistoryCompactor.Result again = compactor.compact(heavy, false);
        System.out.printf("Next roll-up after %d newer records: %s in %.2f s, %d of %d chunks written (%d B), "
            + "%d moved%n", more, again.outcome(), (Time.SYSTEM.nanoTime() - againStart) / 1e9, again.chunksWritten(),
            again.chunks(), again.bytesWritten(), again.moved());
        if (compaction.majorCompact()) {
          long start = Time.SYSTEM.nanoTime();
          HistoryTables.majorCompact(hbase, job.table());
          HistoryTables.majorCompact(hbase, HistoryChunks.table(job.table()));
          System.out.printf("HBase flushed and major-compacted both tables (as it does on its own schedule) in %.1f s%n",
              (Time.SYSTEM.nanoTime() - start) / 1e9);
        }
        TieredHistoryService service = new TieredHistoryService(core, redis, HBaseClient.borrowing(async), NO_TOMBSTONES, registry,
            Time.SYSTEM);
        List<Row> rows = new ArrayList<>();
        int afterRedis = core.maxItemsPerUser();
        int deep = timeline.size() * 4 / 5;
        for (Object[] user : new Object[][] {{"heavy, chunks", heavy, timeline.size()},
            {"heavy, live only", unrolled, timeline.size()}, {"ordinary", light, ordinary}}) {
          String name = (String) user[0];
          long uid = (Long) user[1];
          int n = (Integer) user[2];
          List<HistoryRecord> own = uid == light ? history(ordinary, now) : timeline;
          rows.add(measure(service, redis, run, registry, name, "first page, cold", uid, null, true));
          rows.add(measure(service, redis, run, registry, name, "first page, warm", uid, null, false));
          if (n > afterRedis + pages.page()) {
            rows.add(measure(service, redis, run, registry, name, "page after Redis", uid,
                cursor(own.get(afterRedis - 1)), false));
          }
          if (n > deep + pages.page() && deep > afterRedis) {
            rows.add(measure(service, redis, run, registry, name, "page at " + deep, uid, cursor(own.get(deep - 1)),
                false));
          }
        }
        System.out.println();
        System.out.printf("%-17s %-18s %9s %9s %12s %8s %8s%n", "user", "page", "p50 ms", "p99 ms", "HBase B/page",
            "chunks", "records");
        for (Row r : rows) {
          System.out.printf(Locale.ROOT, "%-17s %-18s %9.2f %9.2f %12.0f %8.2f %8d%n", r.user(), r.kind(),
              r.latency().getValueAtPercentile(50) / 1e6, r.latency().getValueAtPercentile(99) / 1e6, r.bytesPerPage(),
              r.chunksPerPage(), r.records());
        }
      } finally {
        cleanUp(hbase, redis, job.table(), run);
      }
    }
    return 0;
  }

  /** {@code n} records, the i-th newest viewed (i + 1) steps ago, a step = the span / n. */
  private List<HistoryRecord> history(int n, long now) {
    long step = Math.max(1, days * DAY / n);
    List<HistoryRecord> records = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Business b = BUSINESSES[i % BUSINESSES.length];
      records.add(HistoryRecord.newBuilder().setBusiness(b).setOid(10_000_000L + i).setSubId(i % 12)
          .setProgressMs(ThreadLocalRandom.current().nextLong(1, 1_400_000)).setDurationMs(1_440_000)
          .setViewTimeMs(now - (i + 1) * step).setDeviceId("tv-" + (i % 3)).setPlatform(i % 2 == 0 ? "android" : "tv")
          .build());
    }
    return records;
  }

  private Row measure(TieredHistoryService service, RedisConnections redis, String run, SimpleMeterRegistry registry,
      String user, String kind, long uid, @Nullable Cursor after, boolean cold) throws Exception {
    Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    // One unmeasured read warms the user (and the JIT) unless every sample is to be cold.
    service.list(uid, List.of(), after, pages.page()).toCompletableFuture().get(60, TimeUnit.SECONDS);
    int n = cold ? Math.max(1, samples / 4) : samples;
    double bytesBefore = counter(registry, "playline.query.hbase.bytes");
    double chunksBefore = counter(registry, "playline.query.hbase.chunks");
    int records = 0;
    for (int i = 0; i < n; i++) {
      if (cold) {
        forget(redis, run);
      }
      long start = Time.SYSTEM.nanoTime();
      records = service.list(uid, List.of(), after, pages.page()).toCompletableFuture().get(60, TimeUnit.SECONDS)
          .getRecordsCount();
      latency.recordValue(Time.SYSTEM.nanoTime() - start);
    }
    return new Row(user, kind, latency, (counter(registry, "playline.query.hbase.bytes") - bytesBefore) / n,
        (counter(registry, "playline.query.hbase.chunks") - chunksBefore) / n, records);
  }

  private static double counter(SimpleMeterRegistry registry, String name) {
    return registry.find(name).counters().stream().mapToDouble(c -> c.count()).sum();
  }

  /** Removes this run's Redis keys: every user is cold again. */
  private static void forget(RedisConnections redis, String run) throws Exception {
    List<byte[]> keys = redis.shared().keys((run + ":*").getBytes(StandardCharsets.US_ASCII)).get(30, TimeUnit.SECONDS);
    if (!keys.isEmpty()) {
      redis.shared().del(keys.toArray(new byte[0][])).get(30, TimeUnit.SECONDS);
    }
  }

  private static Cursor cursor(HistoryRecord r) {
    return Cursor.newBuilder().setViewTimeMs(r.getViewTimeMs())
        .setItem(ItemKey.newBuilder().setBusiness(r.getBusiness()).setOid(r.getOid())).build();
  }

  /** Bytes of a user's live row as HBase ships it: row, family, qualifier, timestamp and value per cell. */
  private static long rowBytes(Connection hbase, TableName table, long uid) throws IOException {
    byte[] row = HistoryRowKeys.row(uid);
    long bytes = 0;
    try (Table t = hbase.getTable(table);
        ResultScanner scanner = t.getScanner(new Scan().withStartRow(row).withStopRow(row, true).setBatch(1000))) {
      for (Result r = scanner.next(); r != null; r = scanner.next()) {
        for (Cell c : r.rawCells()) {
          bytes += c.getRowLength() + c.getFamilyLength() + c.getQualifierLength() + Long.BYTES + c.getValueLength();
        }
      }
    }
    return bytes;
  }

  private static void cleanUp(Connection hbase, RedisConnections redis, TableName table, String run) {
    try (Admin admin = hbase.getAdmin()) {
      for (TableName t : List.of(table, HistoryChunks.table(table))) {
        if (admin.tableExists(t)) {
          admin.disableTable(t);
          admin.deleteTable(t);
        }
      }
      if (table.getNamespaceAsString().equals(run)) {
        admin.deleteNamespace(run);
      }
      forget(redis, run);
    } catch (Exception e) {
      System.err.println("Clean-up of " + table + " and keys " + run + ":* failed: " + e);
    }
  }

  private static final TombstoneSink NO_TOMBSTONES = new TombstoneSink() {
    @Override
    public void delete(long uid, List<ItemKey> items, long timeMs, byte[] mark) {
      throw new UnsupportedOperationException("the bench only reads");
    }

    @Override
    public void clear(long uid, List<Business> businesses, long timeMs, byte[] mark) {
      throw new UnsupportedOperationException("the bench only reads");
    }
  };
}
