package io.playline.job.sink;

import io.playline.core.store.HistoryChunks;
import io.playline.core.store.HistoryRowKeys;
import io.playline.core.store.TimelineOrder;
import io.playline.job.config.JobConfig;
import io.playline.job.metrics.JobMetrics;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryClear;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemDelete;
import io.playline.time.Time;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.filter.QualifierFilter;
import org.apache.hadoop.hbase.filter.RegexStringComparator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Persists history to the HBase table {@code HistoryRowKeys} and {@code HBaseLayout} describe. An
 * upsert is a cell whose timestamp is the record's view time, so HBase itself keeps the newest (the
 * family holds one version): an older record written later never replaces a newer one. A delete is a column delete marker at the delete
 * time and a clear of everything a family marker at the clear time; both mask every cell not after
 * that time, including cells written later. A clear of some businesses has no marker that fits, so
 * it scans the user's row for those businesses' qualifiers, a page of cells at a time so that a
 * heavy row never makes one call run long, and deletes them up to the clear time.
 *
 * <p>Thread-safe: the consumer loop and the recovery sweep share one instance; each call uses its
 * own {@link Table} from the shared {@link Connection}. Calls block, bounded by {@code
 * hbase.operation.timeout} per HBase call.
 */
public final class HBaseHistorySink implements HistorySink {
  private static final Logger log = LoggerFactory.getLogger(HBaseHistorySink.class);

  private final Connection connection;
  private final JobConfig config;
  private final JobMetrics metrics;
  private final byte[] family;

  /**
   * Told, after each write, how many entries (upserts, deletes, clears) of which user it persisted,
   * e.g. to pick whom to roll up: a roll-up also folds the deletes into the user's chunks.
   */
  @FunctionalInterface
  public interface Listener {
    Listener NONE = (uid, entries) -> {};

    void persisted(long uid, int entries);
  }

  private final Listener listener;
  private final Time time;

  /**
   * Does not take ownership of {@code connection}: {@link #close()} leaves it open. HBase calls are
   * timed by {@code time}.
   */
  public HBaseHistorySink(Connection connection, JobConfig config, JobMetrics metrics, Time time) {
    this(connection, config, metrics, Listener.NONE, time);
  }

  /** As above; {@code listener} hears of every write once HBase accepted it. */
  public HBaseHistorySink(Connection connection, JobConfig config, JobMetrics metrics, Listener listener, Time time) {
    this.listener = listener;
    this.time = time;
    this.connection = connection;
    this.config = config;
    this.metrics = metrics;
    this.family = config.family().getBytes(StandardCharsets.US_ASCII);
  }

  @Override
  public void prepare() {
    try {
      HBaseTables.ensure(connection, config);
    } catch (IOException e) {
      throw HBaseFailures.of("creating table " + config.table(), e);
    }
  }

  @Override
  public void write(List<HistoryChange> changes) {
    List<Mutation> mutations = new ArrayList<>();
    List<Mutation> tombstones = new ArrayList<>();
    List<BusinessClear> businessClears = new ArrayList<>();
    for (HistoryChange change : changes) {
      collect(change, mutations, tombstones, businessClears);
    }
    try (Table table = table(config.table())) {
      for (int from = 0; from < mutations.size(); from += config.hbaseBatchSize()) {
        mutate(table, mutations.subList(from, Math.min(mutations.size(), from + config.hbaseBatchSize())));
      }
      if (!tombstones.isEmpty()) {
        try (Table chunks = table(HistoryChunks.table(config.table()))) {
          for (int from = 0; from < tombstones.size(); from += config.hbaseBatchSize()) {
            mutate(chunks, tombstones.subList(from, Math.min(tombstones.size(), from + config.hbaseBatchSize())));
          }
        }
      }
      // After the puts above, so a scan also finds (and removes) cells of this very call it covers.
      for (BusinessClear clear : businessClears) {
        clearBusinesses(table, clear);
      }
    } catch (IOException e) {
      throw HBaseFailures.of("write of " + changes.size() + " user changes to " + config.table(), e);
    }
    for (HistoryChange change : changes) {
      listener.persisted(change.getUid(), change.getUpsertsCount() + change.getDeletesCount() + change.getClearsCount());
    }
  }

  /**
   * One user's changes as at most one Put and one Delete (every marker carries its own time), and
   * its deletes and clears once more as tombstones of the chunks table's index row, which hide
   * records already rolled up into chunks until the next roll-up folds them in. The tombstones are
   * written whether or not the user has chunks: a roll-up running now may be moving the very items.
   */
  private void collect(HistoryChange change, List<Mutation> mutations, List<Mutation> tombstones,
      List<BusinessClear> businessClears) {
    byte[] row = HistoryRowKeys.row(change.getUid());
    Put put = new Put(row);
    for (HistoryRecord r : change.getUpsertsList()) {
      if (r.getBusinessValue() <= 0 || r.getOid() <= 0 || !cellTime(r.getViewTimeMs())) {
        skip(change.getUid(), "upsert", r);
        continue;
      }
      put.addColumn(family, HistoryRowKeys.qualifier(r.getBusinessValue(), r.getOid()), r.getViewTimeMs(),
          r.toByteArray());
    }
    if (!put.isEmpty()) {
      mutations.add(put);
    }
    Map<String, Long> itemDeletes = new HashMap<>();
    Map<String, Long> chunkTombstones = new HashMap<>();
    for (ItemDelete d : change.getDeletesList()) {
      if (d.getItem().getBusinessValue() <= 0 || !cellTime(d.getDeleteTimeMs())) {
        skip(change.getUid(), "delete", d);
        continue;
      }
      String qualifier = new String(HistoryRowKeys.qualifier(d.getItem().getBusinessValue(), d.getItem().getOid()),
          StandardCharsets.US_ASCII);
      itemDeletes.merge(qualifier, d.getDeleteTimeMs(), Math::max);
      chunkTombstones.merge(TimelineOrder.member(d.getItem().getBusinessValue(), d.getItem().getOid()),
          d.getDeleteTimeMs(), Math::max);
    }
    long clearAll = -1;
    for (HistoryClear c : change.getClearsList()) {
      if (!cellTime(c.getClearTimeMs())) {
        skip(change.getUid(), "clear", c);
      } else if (c.getBusinessesCount() == 0) {
        clearAll = Math.max(clearAll, c.getClearTimeMs());
        chunkTombstones.merge("*", c.getClearTimeMs(), Math::max);
      } else {
        businessClears.add(new BusinessClear(row, new TreeSet<>(c.getBusinessesValueList()), c.getClearTimeMs()));
        for (int business : c.getBusinessesValueList()) {
          chunkTombstones.merge("b" + business, c.getClearTimeMs(), Math::max);
        }
      }
    }
    if (!chunkTombstones.isEmpty()) {
      tombstones.add(HistoryChunks.tombstones(change.getUid(), family, chunkTombstones));
    }
    if (!itemDeletes.isEmpty() || clearAll >= 0) {
      Delete delete = new Delete(row);
      itemDeletes.forEach((q, time) -> delete.addColumns(family, q.getBytes(StandardCharsets.US_ASCII), time));
      if (clearAll >= 0) {
        delete.addFamily(family, clearAll);
      }
      mutations.add(delete);
    }
  }

  /** HBase reserves negative timestamps and Long.MAX_VALUE ("now"); such a time cannot be a cell's. */
  private static boolean cellTime(long timeMs) {
    return timeMs >= 0 && timeMs < Long.MAX_VALUE;
  }

  /** Drops an entry HBase cannot take, rather than failing (and so retrying) the whole write forever. */
  private void skip(long uid, String what, Object entry) {
    metrics.invalidEntry();
    log.warn("Skipping an invalid {} of uid {}: {}", what, uid, entry.toString().replace('\n', ' '));
  }

  private void clearBusinesses(Table table, BusinessClear clear) throws IOException {
    Scan scan = new Scan()
        .withStartRow(clear.row())
        .withStopRow(clear.row(), true)
        .addFamily(family)
        .setTimeRange(0, clear.timeMs() == Long.MAX_VALUE ? Long.MAX_VALUE : clear.timeMs() + 1)
        .setFilter(new FilterList(FilterList.Operator.MUST_PASS_ALL,
            new QualifierFilter(CompareOperator.EQUAL,
                new RegexStringComparator(HistoryRowKeys.qualifierPattern(clear.businesses()))),
            new KeyOnlyFilter()))
        // A page of a wide row per call: setBatch splits the row, caching 1 sends one page per RPC.
        .setBatch(config.clearPageSize())
        .setCaching(1);
    try (ResultScanner scanner = table.getScanner(scan)) {
      for (Result page = scanner.next(); page != null; page = scanner.next()) {
        Delete delete = new Delete(clear.row());
        for (Cell cell : page.rawCells()) {
          delete.addColumns(family, CellUtil.cloneQualifier(cell), clear.timeMs());
        }
        if (!delete.isEmpty()) {
          mutate(table, List.of(delete));
        }
      }
    }
  }

  private void mutate(Table table, List<Mutation> batch) throws IOException {
    int puts = 0;
    int deletes = 0;
    for (Mutation m : batch) {
      if (m instanceof Put) {
        puts += m.size();
      } else {
        deletes += m.size();
      }
    }
    long start = time.nanoTime();
    try {
      table.batch(batch, new Object[batch.size()]);
    } catch (InterruptedException e) {
      throw HBaseFailures.interrupted("batch of " + batch.size() + " mutations", e);
    }
    metrics.hbaseCall(puts, deletes, time.nanoTime() - start);
  }

  private Table table(TableName name) {
    int timeoutMs = (int) config.hbaseOperationTimeout().toMillis();
    return connection.getTableBuilder(name, null)
        .setOperationTimeout(timeoutMs)
        .setRpcTimeout(timeoutMs)
        .build();
  }

  @Override
  public void close() {
    // Tables are per call and the connection belongs to the caller: nothing to release.
  }

  /** A clear of some businesses of one user's row, up to {@code timeMs}. */
  private record BusinessClear(byte[] row, Set<Integer> businesses, long timeMs) {}
}
