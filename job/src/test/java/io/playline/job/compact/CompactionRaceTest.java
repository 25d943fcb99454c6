package io.playline.job.compact;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.core.compact.HistoryCompactor;
import io.playline.core.store.HistoryChunks;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryPage;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.RedisNamespace;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.AsyncTable;
import org.apache.hadoop.hbase.client.AsyncTableBuilder;
import org.apache.hadoop.hbase.client.Get;
import org.junit.jupiter.api.Test;

/**
 * A reader racing a roll-up, on real Redis and HBase: the interleavings are forced by holding back
 * single HBase calls of the reader (proxies of the async client's tables) and by the roll-up's
 * hooks; also a check-and-mutate the client retried after its first attempt was applied, and a page
 * filtered to a business no chunk holds.
 */
class CompactionRaceTest extends AbstractCompactionTest {
  // Gates: the history table's first scan waits for scanGate; its gets wait for getGate.
  private volatile CompletableFuture<Void> scanGate = CompletableFuture.completedFuture(null);
  private final AtomicBoolean scanGateUsed = new AtomicBoolean();
  private volatile CompletableFuture<Void> getGate = CompletableFuture.completedFuture(null);
  private final CompletableFuture<Void> indexRead = new CompletableFuture<>();
  private final AtomicBoolean indexIssued = new AtomicBoolean();
  private volatile CompletableFuture<Void> chunksFetched = new CompletableFuture<>();
  private final CompletableFuture<Void> scanIssued = new CompletableFuture<>();

  /** The test's world, its reads going through {@link #gated}. */
  @Override
  void setUp(RedisNamespace redisNs, HBaseNamespace hbase, Map<String, String> overrides) throws Exception {
    setUp(redisNs, hbase, overrides, this::gated);
  }

  /**
   * Were the index row and the live cells read in parallel, an index get served before a roll-up's
   * step 2 and a live scan after its step 3 would find the moved records in neither (and a cold
   * user's warm-up would mark its Redis timeline complete with the 10 kept live).
   */
  @Test
  void aRollUpWhileTheLiveScanIsHeldBackLosesNoRecord(RedisNamespace redisNs, HBaseNamespace hbase)
      throws Exception {
    setUp(redisNs, hbase, Map.of("history.compact.threshold", "40", "history.compact.keep", "10",
        "history.redis.max.items", "100", "query.hbase.max.items", "200"));
    long uid = 8001;
    history(uid, 60);
    scanGate = new CompletableFuture<>();
    CompletionStage<HistoryPage> first = service.list(uid, List.of(), null, 100);
    scanIssued.get(30, TimeUnit.SECONDS);
    if (indexIssued.get()) {
      indexRead.get(30, TimeUnit.SECONDS); // issued beside the scan: let it be served before the roll-up
    }
    assertThat(compactor.compact(uid, false).outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
    scanGate.complete(null); // now the live scan runs: 10 live cells
    HistoryPage page = first.toCompletableFuture().get(30, TimeUnit.SECONDS);
    HistoryPage again = service.list(uid, List.of(), null, 100).toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertThat(List.of(page.getRecordsCount(), again.getRecordsCount(), again.getHasMore() ? 1 : 0))
        .as("records of the first page, of the next list (Redis warmed), has more").isEqualTo(List.of(60, 60, 0));
  }

  /**
   * A read between a roll-up's step 2 and 3 finds both copies of the moved records; its check of the
   * live cells then runs after step 3 deleted them: the copies in the live read must still win.
   */
  @Test
  void liveDeletesDuringTheLiveCellCheckListNoItemTwice(RedisNamespace redisNs, HBaseNamespace hbase) throws Exception {
    setUp(redisNs, hbase, Map.of("history.compact.threshold", "40", "history.compact.keep", "10",
        "history.redis.max.items", "5", "query.hbase.max.items", "200"));
    long uid = 8002;
    rolledUpThen40More(uid);
    // Warm Redis with the newest 5 (not complete), so the next page goes on in HBase without a warm-up.
    assertThat(service.list(uid, List.of(), null, 5).toCompletableFuture().get(30, TimeUnit.SECONDS)
        .getRecordsCount()).isEqualTo(5);

    CompletableFuture<Void> atIndex = new CompletableFuture<>();
    CompletableFuture<Void> goOn = new CompletableFuture<>();
    compactor.hooks(new HistoryCompactor.Hooks() {
      @Override
      public void afterIndex(long u) {
        atIndex.complete(null);
        goOn.join();
      }
    });
    CompletableFuture<HistoryCompactor.Result> rollup = CompletableFuture.supplyAsync(() -> {
      try {
        return compactor.compact(uid, false);
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
    atIndex.get(30, TimeUnit.SECONDS); // the new index is written, the moved cells are still live
    getGate = new CompletableFuture<>();
    chunksFetched = new CompletableFuture<>(); // the warm-up above fetched chunks too
    CompletionStage<HistoryPage> page = service.list(uid, List.of(), null, 100);
    chunksFetched.get(30, TimeUnit.SECONDS); // live scan and index read done
    goOn.complete(null);
    assertThat(rollup.get(30, TimeUnit.SECONDS).outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
    getGate.complete(null); // the shadow check's get runs after step 3
    List<String> members = page.toCompletableFuture().get(30, TimeUnit.SECONDS).getRecordsList().stream()
        .map(r -> r.getBusinessValue() + ":" + r.getOid()).toList();
    assertThat(members).as("one page").doesNotHaveDuplicates();
  }

  /** No chunks table yet (no job created it): reads as no chunks. */
  @Test
  void aMissingChunksTableReadsAsNoChunks(RedisNamespace redisNs, HBaseNamespace hbase) throws Exception {
    setUp(redisNs, hbase, Map.of());
    long uid = 8003;
    history(uid, 30);
    TableName chunks = HistoryChunks.table(config.table());
    try (Admin admin = hbase.connection().getAdmin()) {
      admin.disableTable(chunks);
      admin.deleteTable(chunks);
    }
    assertThat(service.list(uid, List.of(), null, 100).toCompletableFuture().get(30, TimeUnit.SECONDS)
        .getRecordsCount()).isEqualTo(30);
  }

  /**
   * The client retries a check-and-mutate whose first attempt was applied (a lost reply): the retry
   * fails against the index that attempt wrote, which is no conflict; deleting the new chunk rows
   * there would lose the records the index names.
   */
  @Test
  void aRetriedIndexWriteIsNoConflictAndKeepsItsChunks(RedisNamespace redisNs,
      HBaseNamespace hbase) throws Exception {
    setUp(redisNs, hbase, Map.of("history.compact.threshold", "40", "history.compact.keep", "10",
        "history.redis.max.items", "100", "query.hbase.max.items", "200"));
    long uid = 8004;
    rolledUpThen40More(uid);
    HistoryCompactor retrying = new HistoryCompactor(retryingCas(hbase.connection()), config.layout(),
        config.compaction().rollup(), System::currentTimeMillis);
    HistoryCompactor.Result r = retrying.compact(uid, false);
    String third;
    try {
      third = compactor.compact(uid, true).outcome().toString();
    } catch (IllegalStateException e) {
      third = e.getMessage();
    }
    flushRedis();
    int listed = service.list(uid, List.of(), null, 100).toCompletableFuture().get(30, TimeUnit.SECONDS)
        .getRecordsCount();
    assertThat(List.of(r.outcome().toString(), String.valueOf(listed), third))
        .as("outcome of the retried roll-up, records listed, next roll-up")
        .isEqualTo(List.of("ROLLED_UP", "100", "NOT_NEEDED"));
  }

  private void flushRedis() throws Exception {
    env.forgetRedis();
  }

  /** A connection whose tables send every CheckAndMutate twice and answer the second (a retry after a lost reply). */
  private org.apache.hadoop.hbase.client.Connection retryingCas(org.apache.hadoop.hbase.client.Connection real) {
    return proxy(org.apache.hadoop.hbase.client.Connection.class, real, (m, args, result) -> {
      if (m.getName().equals("getTableBuilder")) {
        Object[] self = new Object[1];
        Object realBuilder = result;
        self[0] = proxy(org.apache.hadoop.hbase.client.TableBuilder.class, realBuilder, (bm, bargs, bresult) -> {
          if (bm.getName().equals("build")) {
            org.apache.hadoop.hbase.client.Table t = (org.apache.hadoop.hbase.client.Table) bresult;
            return proxy(org.apache.hadoop.hbase.client.Table.class, t, (tm, targs, tresult) -> {
              if (tm.getName().equals("checkAndMutate") && targs.length == 1
                  && targs[0] instanceof org.apache.hadoop.hbase.client.CheckAndMutate cam) {
                return t.checkAndMutate(cam); // the retry; tresult was the applied first attempt
              }
              return tresult;
            });
          }
          return bresult == realBuilder ? self[0] : bresult;
        });
        return self[0];
      }
      return result;
    });
  }

  /** A page filtered to a business no chunk holds fetches no chunk (each chunk names its businesses). */
  @Test
  void aPageFilteredToABusinessNoChunkHoldsFetchesNone(RedisNamespace redisNs, HBaseNamespace hbase) throws Exception {
    setUp(redisNs, hbase, Map.of("history.compact.threshold", "2000", "history.compact.keep", "500",
        "history.compact.chunk.bytes", "8192", "history.redis.max.items", "100", "query.hbase.max.items", "200"));
    long uid = 8005;
    history(uid, 20_000);
    HistoryCompactor.Result r = compactor.compact(uid, false);
    double before = registry.find("playline.query.hbase.chunks").counters().stream().mapToDouble(c -> c.count()).sum();
    HistoryPage page = service.list(uid, List.of(Business.COMIC), null, 20).toCompletableFuture()
        .get(60, TimeUnit.SECONDS);
    double chunks = registry.find("playline.query.hbase.chunks").counters().stream().mapToDouble(c -> c.count()).sum()
        - before;
    assertThat(chunks).as("chunks fetched for one empty page (%d chunks in all, %d records)", r.chunks(),
        page.getRecordsCount()).isLessThan(10);
  }

  // --- an AsyncConnection whose tables' calls can be held back ---

  private AsyncConnection gated(AsyncConnection real) {
    return proxy(AsyncConnection.class, real, (m, args, result) -> {
      if (m.getName().equals("getTableBuilder") && args.length == 1 && args[0] instanceof TableName name) {
        return builder((AsyncTableBuilder<?>) result, name);
      }
      return result;
    });
  }

  private Object builder(AsyncTableBuilder<?> real, TableName name) {
    Object[] self = new Object[1];
    self[0] = proxy(AsyncTableBuilder.class, real, (m, args, result) -> {
      if (m.getName().equals("build")) {
        return table((AsyncTable<?>) result, name);
      }
      return result == real ? self[0] : result;
    });
    return self[0];
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private Object table(AsyncTable real, TableName name) {
    // Called while the env is built (config not set yet): the env names its history table this way.
    TableName historyTable = hbase.table("history");
    boolean chunks = name.equals(HistoryChunks.table(historyTable));
    boolean history = name.equals(historyTable);
    return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {AsyncTable.class}, (p, m, args) -> {
      if (history && m.getName().equals("scan") && args != null && args.length == 2 && scanGateUsed.compareAndSet(
          false, !scanGate.isDone())) {
        scanIssued.complete(null);
        scanGate.thenRun(() -> real.scan((org.apache.hadoop.hbase.client.Scan) args[0],
            (org.apache.hadoop.hbase.client.ScanResultConsumerBase) args[1]));
        return null;
      }
      if (history && m.getName().equals("get") && args.length == 1 && args[0] instanceof Get g) {
        return getGate.thenCompose(x -> real.get(g));
      }
      if (chunks && m.getName().equals("get") && args.length == 1 && args[0] instanceof Get) {
        indexIssued.set(true);
      }
      Object result = invoke(real, m, args);
      if (chunks && m.getName().equals("get") && args.length == 1 && args[0] instanceof Get) {
        return ((CompletableFuture<?>) result).whenComplete((r, e) -> indexRead.complete(null));
      }
      if (chunks && (m.getName().equals("getAll") || (m.getName().equals("get") && args[0] instanceof List))) {
        chunksFetched.complete(null);
      }
      return result;
    });
  }

  private interface After {
    Object apply(java.lang.reflect.Method m, Object[] args, Object result) throws Exception;
  }

  @SuppressWarnings("unchecked")
  private <T> T proxy(Class<T> type, Object real, After after) {
    InvocationHandler h = (p, m, args) -> after.apply(m, args == null ? new Object[0] : args, invoke(real, m, args));
    return (T) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, h);
  }

  private static Object invoke(Object real, java.lang.reflect.Method m, Object[] args) throws Throwable {
    try {
      return m.invoke(real, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  // --- helpers ---

  private void history(long uid, int n) {
    List<HistoryRecord> records = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      records.add(record(uid, 1 + i, now - (i + 1) * 60_000L));
    }
    upsert(uid, records);
  }

  /** 60 records, a first version (so readers have an index), then 40 newer records to roll up again. */
  private void rolledUpThen40More(long uid) throws Exception {
    history(uid, 60);
    assertThat(compactor.compact(uid, false).outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
    List<HistoryRecord> more = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      more.add(record(uid, 1000 + i, now - i * 1000L));
    }
    upsert(uid, more);
  }

  private static HistoryRecord record(long uid, long oid, long viewTimeMs) {
    return HistoryRecord.newBuilder().setUid(uid).setBusiness(Business.VIDEO).setOid(oid).setProgressMs(oid * 10)
        .setDurationMs(600_000).setViewTimeMs(viewTimeMs).setDeviceId("d1").setPlatform("web").build();
  }
}
