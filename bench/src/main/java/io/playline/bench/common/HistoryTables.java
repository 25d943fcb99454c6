package io.playline.bench.common;

import io.playline.job.sink.HBaseHistorySink;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryRecord;
import io.playline.time.Time;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Connection;

/**
 * What {@code bench reads} and {@code bench heavy} do to a standalone's history tables before they
 * read them: write a user's records as the job persists them, and flush and major-compact a table as
 * HBase does on its own schedule. Stateless.
 */
public final class HistoryTables {
  private HistoryTables() {}

  /** Writes {@code records} as {@code uid}'s through the job's sink, 5 000 per change. */
  public static void write(HBaseHistorySink sink, long uid, List<HistoryRecord> records) {
    for (int from = 0; from < records.size(); from += 5000) {
      List<HistoryRecord> part = records.subList(from, Math.min(records.size(), from + 5000));
      sink.write(List.of(HistoryChange.newBuilder().setUid(uid).addAllUpserts(part.stream()
          .map(r -> r.toBuilder().setUid(uid).build()).toList()).build()));
    }
  }

  /** Flushes {@code table} and major-compacts it, waiting until HBase reports it done. */
  public static void majorCompact(Connection hbase, TableName table) throws Exception {
    try (Admin admin = hbase.getAdmin()) {
      admin.flush(table);
      admin.majorCompact(table);
      long deadline = Time.SYSTEM.nanoTime() + TimeUnit.MINUTES.toNanos(10);
      // The request is queued: wait for it to start (or finish at once), then for it to end.
      Thread.sleep(500);
      while (admin.getCompactionState(table) != CompactionState.NONE) {
        if (Time.SYSTEM.nanoTime() > deadline) {
          throw new IOException("major compaction of " + table + " still running after 10 min");
        }
        Thread.sleep(200);
      }
    }
  }
}
