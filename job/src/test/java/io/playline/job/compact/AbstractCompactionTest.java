package io.playline.job.compact;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.compact.HistoryCompactor;
import io.playline.core.query.TieredHistoryService;
import io.playline.core.store.CompactedIndex;
import io.playline.core.store.HistoryChunks;
import io.playline.core.store.HistoryRowKeys;
import io.playline.job.config.JobConfig;
import io.playline.job.sink.HBaseHistorySink;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.HistoryPage;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A compaction test's world on the test JVM's real Redis and HBase ({@link CompactionEnv}, set up
 * by each test with its own settings and closed after it), and the reads and writes the tests
 * share: a user's history written as the job persists it, every page of a cold user, the cells and
 * chunk rows HBase holds.
 */
@ExtendWith({RealRedisExtension.class, RealHBaseExtension.class})
abstract class AbstractCompactionTest {
  static final long DAY = Duration.ofDays(1).toMillis();
  final long now = System.currentTimeMillis();
  final List<AutoCloseable> closeables = new ArrayList<>();
  CompactionEnv env;
  SimpleMeterRegistry registry;
  HBaseNamespace hbase;
  JobConfig config;
  HBaseHistorySink sink;
  HistoryCompactor compactor;
  TieredHistoryService service;

  void setUp(RedisNamespace redisNs, HBaseNamespace hbase, Map<String, String> overrides) throws Exception {
    setUp(redisNs, hbase, overrides, async -> async);
  }

  /** Sets up the test's {@link CompactionEnv}, its reads going through {@code wrap}'s HBase connection. */
  final void setUp(RedisNamespace redisNs, HBaseNamespace hbase, Map<String, String> overrides,
      UnaryOperator<AsyncConnection> wrap) throws Exception {
    this.hbase = hbase;
    env = new CompactionEnv(redisNs, hbase, overrides, wrap);
    closeables.add(env);
    registry = env.registry;
    config = env.config;
    sink = env.sink;
    compactor = env.compactor;
    service = env.service;
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  /** Writes {@code n} records of {@code uid}: oids 1..n, the i-th viewed (i + 1) × spacing ago. */
  List<HistoryRecord> history(long uid, int n, java.util.function.IntFunction<Business> business,
      long spacingMs) {
    List<HistoryRecord> records = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      records.add(record(uid, business.apply(i), 1 + i, now - (i + 1) * spacingMs));
    }
    upsert(uid, records);
    return records;
  }

  void upsert(long uid, List<HistoryRecord> records) {
    env.upsert(uid, records);
  }

  /** Every page of a cold user (its Redis keys removed first, so it is read from HBase and warmed). */
  List<HistoryRecord> listAll(long uid) throws Exception {
    env.forgetRedis();
    List<HistoryRecord> all = new ArrayList<>();
    Cursor after = null;
    for (int pages = 0; pages < 2000; pages++) {
      HistoryPage page = join(service.list(uid, List.of(), after, 17));
      all.addAll(page.getRecordsList());
      if (!page.getHasMore()) {
        assertThat(members(all)).doesNotHaveDuplicates();
        return all;
      }
      after = page.getNext();
    }
    throw new AssertionError("more than 2000 pages");
  }

  int liveCells(long uid) throws Exception {
    return countCells(config.table(), uid, false);
  }

  int chunkRows(long uid) throws Exception {
    return countCells(HistoryChunks.table(config.table()), uid, true);
  }

  /** Cells of the user's history row, or rows of its chunks ({@code chunks}). */
  int countCells(org.apache.hadoop.hbase.TableName table, long uid, boolean chunks) throws Exception {
    byte[] row = HistoryRowKeys.row(uid);
    byte[] start = chunks ? (new String(row, java.nio.charset.StandardCharsets.US_ASCII) + "/").getBytes() : row;
    byte[] stop = chunks ? (new String(row, java.nio.charset.StandardCharsets.US_ASCII) + "0").getBytes() : row;
    int n = 0;
    try (Table t = hbase.connection().getTable(table);
        ResultScanner scanner = t.getScanner(new Scan().withStartRow(start).withStopRow(stop, !chunks)
            .setFilter(new KeyOnlyFilter()))) {
      for (Result r = scanner.next(); r != null; r = scanner.next()) {
        n += chunks ? 1 : r.rawCells().length;
      }
    }
    return n;
  }

  CompactedIndex index(long uid) throws Exception {
    try (Table t = hbase.connection().getTable(HistoryChunks.table(config.table()))) {
      return CompactedIndex.parse(t.get(new Get(HistoryRowKeys.row(uid))));
    }
  }

  double counter(String name) {
    return env.counter(name);
  }

  static HistoryRecord record(long uid, Business business, long oid, long viewTimeMs) {
    return HistoryRecord.newBuilder().setUid(uid).setBusiness(business).setOid(oid).setProgressMs(oid * 10)
        .setDurationMs(600_000).setViewTimeMs(viewTimeMs).setDeviceId("d1").setPlatform("web").build();
  }

  static ItemKey key(HistoryRecord r) {
    return ItemKey.newBuilder().setBusiness(r.getBusiness()).setOid(r.getOid()).build();
  }

  static String member(HistoryRecord r) {
    return r.getBusinessValue() + ":" + r.getOid();
  }

  /** The member of the i-th written item of the heavy user. */
  static String member(int i) {
    return (i % 2 == 0 ? Business.VIDEO_VALUE : Business.ARTICLE_VALUE) + ":" + (1 + i);
  }

  static List<String> members(List<HistoryRecord> records) {
    return records.stream().map(AbstractCompactionTest::member).toList();
  }

  static <T> T join(java.util.concurrent.CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } catch (ExecutionException | TimeoutException e) {
      throw new AssertionError(e);
    }
  }
}
