package io.playline.job.stats;

import io.playline.core.config.HBaseLayout;
import io.playline.core.stats.ItemStatsLayout;
import io.playline.core.store.HistoryRowKeys;
import io.playline.core.store.RetriableStoreException;
import io.playline.job.sink.HBaseFailures;
import io.playline.job.sink.HBaseTables;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the per-item counters ({@link ItemStatsLayout}) in step with the history stream: for each
 * upserted record of a persisted poll, whether its user becomes a viewer of the item, or a
 * finisher, is decided from the user's flags (read for the whole poll in one multi-get) and the
 * records before it in the poll; the sums go to each item's cells of the record's stream (a
 * partition of one incarnation of the topic) in one conditional write per item and stream, and the
 * flags are written last.
 *
 * <p>Exactly once across replays: a stream's cells remember the highest offset applied, and a
 * record at or below it adds nothing (its flags are still written). A crash after the counters and
 * before the flags replays records the counters already hold; one before the counters replays
 * records whose flags were never written: either way nothing is counted twice or lost. A late
 * writer (a consumer that lost the partition in a rebalance) loses the conditional write, re-reads
 * and finds its records applied. Duplicates and reordered records count once per user, since only
 * a missing flag counts. Deletes and clears do not uncount: a deleted item was still watched.
 *
 * <p>Not thread-safe: confined to the consumer thread. Blocks on HBase.
 */
public final class ItemCounters {
  private static final Logger log = LoggerFactory.getLogger(ItemCounters.class);
  private static final int MAX_ATTEMPTS = 8;
  private static final byte[] EMPTY = new byte[0];

  /**
   * One upserted record of a poll: where it came from ({@code stream}, {@link ItemStatsLayout#stream},
   * and its offset there) and whose it is.
   */
  public record Input(String stream, long offset, long uid, HistoryRecord record) {}

  /**
   * What one {@link #apply} changed, for metrics and tests.
   *
   * @param skipped item streams not written: nobody added and the last view moved less than the granularity
   */
  public record Applied(int items, long viewers, long finishes, int conflicts, int skipped) {}

  private final Connection connection;
  private final ItemStatsLayout layout;
  private final HBaseLayout history;
  private final int finishPercent;
  private final Duration timeout;
  private final int regions;
  private final LongSupplier clock;
  private long lastViewGranularityMs;
  /** Test seams: run after the flags are read, and before they are written. */
  private Runnable afterFlagsRead = () -> { };
  private Runnable beforeFlagsWritten = () -> { };

  /**
   * @param finishPercent a record at or past this share of its known duration counts as finished
   *     ({@code item.stats.finish.percent}); progress -1 always does
   * @param timeout bound of one HBase call, retries included ({@code hbase.operation.timeout}): a
   *     consumer stuck past its poll interval would lose its partitions
   */
  public ItemCounters(Connection connection, HBaseLayout history, int finishPercent, Duration timeout,
      LongSupplier clock) {
    this(connection, history, finishPercent, timeout, 1, clock);
  }

  /** As above; tables it creates are pre-split into {@code regions} ({@code hbase.table.regions}). */
  public ItemCounters(Connection connection, HBaseLayout history, int finishPercent, Duration timeout, int regions,
      LongSupplier clock) {
    this.regions = regions;
    this.connection = connection;
    this.history = history;
    this.layout = ItemStatsLayout.of(history);
    this.finishPercent = finishPercent;
    this.timeout = timeout;
    this.clock = clock;
  }

  /**
   * Writes an item's cells of a stream only when a poll adds a viewer or finisher, or moves the
   * item's last view time by at least {@code granularity} ({@code item.stats.last.view.granularity};
   * zero, the default here, writes every poll). A poll whose records add nobody and move the last
   * view less leaves the stream's offset where it was: a replay of those records adds nobody either.
   *
   * @return this
   */
  public ItemCounters lastViewGranularity(Duration granularity) {
    this.lastViewGranularityMs = granularity.toMillis();
    return this;
  }

  /** Tests: {@code afterFlagsRead} runs once the poll's flags are read, {@code beforeFlagsWritten} after the counters. */
  void hooks(Runnable afterFlagsRead, Runnable beforeFlagsWritten) {
    this.afterFlagsRead = afterFlagsRead;
    this.beforeFlagsWritten = beforeFlagsWritten;
  }

  private Table table(TableName name) throws IOException {
    int ms = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
    return connection.getTableBuilder(name, null).setOperationTimeout(ms).setRpcTimeout(ms).build();
  }

  /** Creates the two tables (and their namespace) when missing; safe to race with other job processes. */
  public void prepare() throws IOException {
    try (Admin admin = connection.getAdmin()) {
      HBaseTables.ensureNamespace(admin, layout.stats().getNamespaceAsString());
      create(admin, layout.stats(), ColumnFamilyDescriptorBuilder.newBuilder(ItemStatsLayout.STATS_FAMILY)
          .setMaxVersions(1).build());
      // Flags live as long as the longest retention; each is written with its business's own TTL.
      create(admin, layout.marks(), ColumnFamilyDescriptorBuilder.newBuilder(ItemStatsLayout.MARKS_FAMILY)
          .setMaxVersions(1).setTimeToLive((int) history.maxRetention().toSeconds()).build());
      int ttl = admin.getDescriptor(layout.marks()).getColumnFamily(ItemStatsLayout.MARKS_FAMILY).getTimeToLive();
      if (ttl < history.maxRetention().toSeconds()) {
        log.warn("HBase table {} keeps flags {} s but the longest history.retention is {} s: users are counted again "
            + "after {} s; alter the family's TTL", layout.marks(), ttl, history.maxRetention().toSeconds(), ttl);
      }
    }
  }

  private void create(Admin admin, TableName name, ColumnFamilyDescriptor family) throws IOException {
    // Pre-split over the salted row keys as the history table is: one poll's conditional writes and
    // gets spread over the regions' handlers instead of queueing on one region.
    if (!admin.tableExists(name) && HBaseTables.createPresplit(admin,
        TableDescriptorBuilder.newBuilder(name).setColumnFamily(family).build(), regions)) {
      log.info("Created HBase table {} ({} regions)", name, regions);
    }
  }

  /**
   * Counts {@code inputs} (in any order; applied in stream and offset order).
   *
   * @throws RetriableStoreException when HBase failed: apply the same poll again later
   */
  public Applied apply(List<Input> inputs) {
    try (Table stats = table(layout.stats()); Table marks = table(layout.marks())) {
      // What the history sink refuses is not counted either.
      List<Input> ordered = new ArrayList<>(inputs.size());
      for (Input in : inputs) {
        HistoryRecord r = in.record();
        if (in.uid() > 0 && r.getOid() > 0 && Business.forNumber(r.getBusinessValue()) != null
            && r.getBusiness() != Business.BUSINESS_UNSPECIFIED) {
          ordered.add(in);
        }
      }
      ordered.sort(Comparator.comparing(Input::stream).thenComparingLong(Input::offset));
      if (ordered.isEmpty()) {
        return new Applied(0, 0, 0, 0, 0);
      }
      Map<UserItem, Flags> flags = readFlags(marks, ordered);
      afterFlagsRead.run();
      // Per item and stream, what each record adds, in offset order.
      Map<ItemKey, Map<String, List<Contribution>>> contributions = new LinkedHashMap<>();
      for (Input in : ordered) {
        ItemKey item = key(in.record());
        Flags f = flags.get(new UserItem(in.uid(), item));
        int before = f.now;
        f.now |= ItemStatsLayout.VIEWED | (finished(in.record()) ? ItemStatsLayout.FINISHED : 0);
        contributions.computeIfAbsent(item, k -> new TreeMap<>())
            .computeIfAbsent(in.stream(), k -> new ArrayList<>())
            .add(new Contribution(in.offset(), (before & ItemStatsLayout.VIEWED) == 0,
                (before & ItemStatsLayout.FINISHED) == 0 && (f.now & ItemStatsLayout.FINISHED) != 0,
                in.record().getViewTimeMs()));
      }
      Applied applied = applyCounters(stats, contributions);
      beforeFlagsWritten.run();
      writeFlags(marks, flags);
      return applied;
    } catch (IOException e) {
      throw HBaseFailures.of("item counters", e);
    }
  }

  private boolean finished(HistoryRecord r) {
    return r.getProgressMs() == -1
        || (r.getDurationMs() > 0 && r.getProgressMs() * 100 >= r.getDurationMs() * finishPercent);
  }

  private static ItemKey key(HistoryRecord r) {
    return ItemKey.newBuilder().setBusinessValue(r.getBusinessValue()).setOid(r.getOid()).build();
  }

  private Map<UserItem, Flags> readFlags(Table marks, List<Input> ordered) throws IOException {
    Map<Long, List<ItemKey>> byUser = new LinkedHashMap<>();
    Map<UserItem, Flags> flags = new HashMap<>();
    for (Input in : ordered) {
      ItemKey item = key(in.record());
      if (flags.putIfAbsent(new UserItem(in.uid(), item), new Flags()) == null) {
        byUser.computeIfAbsent(in.uid(), k -> new ArrayList<>()).add(item);
      }
    }
    List<Get> gets = new ArrayList<>(byUser.size());
    List<Long> uids = new ArrayList<>(byUser.size());
    byUser.forEach((uid, items) -> {
      Get get = new Get(HistoryRowKeys.row(uid));
      for (ItemKey item : items) {
        get.addColumn(ItemStatsLayout.MARKS_FAMILY, ItemStatsLayout.flag(item, ItemStatsLayout.VIEWED));
        get.addColumn(ItemStatsLayout.MARKS_FAMILY, ItemStatsLayout.flag(item, ItemStatsLayout.FINISHED));
      }
      gets.add(get);
      uids.add(uid);
    });
    Result[] results = marks.get(gets);
    for (int i = 0; i < results.length; i++) {
      if (results[i].isEmpty()) {
        continue;
      }
      for (Cell cell : results[i].rawCells()) {
        byte[] qualifier = CellUtil.cloneQualifier(cell);
        int flag = ItemStatsLayout.flagOf(qualifier);
        Flags f = flag == 0 ? null : flags.get(new UserItem(uids.get(i), ItemStatsLayout.flagItem(qualifier)));
        if (f != null) {
          f.stored |= flag;
          f.now |= flag;
          f.writtenAtMs[flag] = cell.getTimestamp();
        }
      }
    }
    return flags;
  }

  private Applied applyCounters(Table stats, Map<ItemKey, Map<String, List<Contribution>>> contributions)
      throws IOException {
    List<ItemKey> items = new ArrayList<>(contributions.keySet());
    Map<ItemKey, Result> rows = readRows(stats, items);
    long viewers = 0;
    long finishes = 0;
    int conflicts = 0;
    int skipped = 0;
    for (int attempt = 1; !items.isEmpty(); attempt++) {
      if (attempt > MAX_ATTEMPTS) {
        throw new RetriableStoreException("item counters: " + items.size() + " items kept losing their conditional "
            + "writes (another consumer writes the same stream?)");
      }
      List<CheckAndMutate> writes = new ArrayList<>();
      List<ItemKey> written = new ArrayList<>();
      List<long[]> sums = new ArrayList<>();
      for (ItemKey item : items) {
        Result row = rows.get(item);
        for (Map.Entry<String, List<Contribution>> e : contributions.get(item).entrySet()) {
          String p = e.getKey();
          byte[] o = ItemStatsLayout.counter('o', p);
          byte[] storedOffset = row.getValue(ItemStatsLayout.STATS_FAMILY, o);
          long applied = storedOffset == null ? -1 : Bytes.toLong(storedOffset);
          long v = counter(row, 'v', p);
          long f = counter(row, 'f', p);
          long storedT = counter(row, 't', p);
          long t = storedT;
          long highest = applied;
          long dv = 0;
          long df = 0;
          for (Contribution c : e.getValue()) {
            if (c.offset() > applied) {
              dv += c.viewer() ? 1 : 0;
              df += c.finish() ? 1 : 0;
              t = Math.max(t, c.viewTimeMs());
              highest = Math.max(highest, c.offset());
            }
          }
          if (highest == applied) {
            continue; // every record of this stream was applied before
          }
          if (dv == 0 && df == 0 && t - storedT < lastViewGranularityMs && storedOffset != null) {
            skipped++;
            continue; // adds nobody and moves the last view less than the granularity: not worth a write
          }
          byte[] rowKey = ItemStatsLayout.row(item);
          Put put = new Put(rowKey)
              .addColumn(ItemStatsLayout.STATS_FAMILY, ItemStatsLayout.counter('v', p), Bytes.toBytes(v + dv))
              .addColumn(ItemStatsLayout.STATS_FAMILY, ItemStatsLayout.counter('f', p), Bytes.toBytes(f + df))
              .addColumn(ItemStatsLayout.STATS_FAMILY, ItemStatsLayout.counter('t', p), Bytes.toBytes(t))
              .addColumn(ItemStatsLayout.STATS_FAMILY, o, Bytes.toBytes(highest));
          CheckAndMutate.Builder check = CheckAndMutate.newBuilder(rowKey);
          writes.add(storedOffset == null
              ? check.ifNotExists(ItemStatsLayout.STATS_FAMILY, o).build(put)
              : check.ifEquals(ItemStatsLayout.STATS_FAMILY, o, storedOffset).build(put));
          written.add(item);
          sums.add(new long[] {dv, df});
        }
      }
      List<CheckAndMutateResult> results = writes.isEmpty() ? List.of() : stats.checkAndMutate(writes);
      List<ItemKey> retry = new ArrayList<>();
      for (int i = 0; i < results.size(); i++) {
        if (results.get(i).isSuccess()) {
          viewers += sums.get(i)[0];
          finishes += sums.get(i)[1];
        } else if (!retry.contains(written.get(i))) {
          retry.add(written.get(i));
        }
      }
      conflicts += retry.size();
      // A lost write: another writer moved the stream's offset; re-read and apply what is left.
      // Partitions of the item that did succeed find their offset moved and add nothing again.
      items = retry;
      if (!retry.isEmpty()) {
        rows = readRows(stats, retry);
      }
    }
    return new Applied(contributions.size(), viewers, finishes, conflicts, skipped);
  }

  private static long counter(Result row, char kind, String stream) {
    byte[] value = row.getValue(ItemStatsLayout.STATS_FAMILY, ItemStatsLayout.counter(kind, stream));
    return value == null || value.length != Bytes.SIZEOF_LONG ? 0 : Bytes.toLong(value);
  }

  private static Map<ItemKey, Result> readRows(Table stats, List<ItemKey> items) throws IOException {
    List<Get> gets = new ArrayList<>(items.size());
    for (ItemKey item : items) {
      gets.add(new Get(ItemStatsLayout.row(item)).addFamily(ItemStatsLayout.STATS_FAMILY));
    }
    Result[] results = stats.get(gets);
    Map<ItemKey, Result> rows = new HashMap<>();
    for (int i = 0; i < results.length; i++) {
      rows.put(items.get(i), results[i]);
    }
    return rows;
  }

  /**
   * Adds the flags this poll set, one cell each, and refreshes those written longer ago than a tenth
   * of their retention, so a user keeps being counted once while they keep watching. A flag is never
   * written unset: a writer that read stale flags can only add what it saw.
   */
  private void writeFlags(Table marks, Map<UserItem, Flags> flags) throws IOException {
    long now = clock.getAsLong();
    // One Put per user and TTL (a Put has one TTL; businesses may keep history for different times).
    Map<UserTtl, Put> puts = new LinkedHashMap<>();
    for (Map.Entry<UserItem, Flags> e : flags.entrySet()) {
      Flags f = e.getValue();
      ItemKey item = e.getKey().item();
      long ttlMs = history.retention(business(item)).toMillis();
      long uid = e.getKey().uid();
      for (int flag : new int[] {ItemStatsLayout.VIEWED, ItemStatsLayout.FINISHED}) {
        boolean stale = (f.stored & flag) != 0 && now - f.writtenAtMs[flag] >= ttlMs / 10;
        if ((f.now & flag) != 0 && ((f.stored & flag) == 0 || stale)) {
          // Stamped with the job's clock: the TTL runs from the view, and the refresh compares with it.
          puts.computeIfAbsent(new UserTtl(uid, ttlMs), k -> new Put(HistoryRowKeys.row(uid), now).setTTL(ttlMs))
              .addColumn(ItemStatsLayout.MARKS_FAMILY, ItemStatsLayout.flag(item, flag), EMPTY);
        }
      }
    }
    if (!puts.isEmpty()) {
      marks.put(new ArrayList<>(puts.values()));
    }
  }

  private static Business business(ItemKey item) {
    Business b = Business.forNumber(item.getBusinessValue());
    return b == null ? Business.UNRECOGNIZED : b;
  }

  private record UserItem(long uid, ItemKey item) {}

  private record UserTtl(long uid, long ttlMs) {}

  private record Contribution(long offset, boolean viewer, boolean finish, long viewTimeMs) {}

  /** A user's flags for an item: as stored (with when, by flag), and after this poll's records so far. */
  private static final class Flags {
    int stored;
    int now;
    final long[] writtenAtMs = new long[ItemStatsLayout.FINISHED + 1];
  }
}
