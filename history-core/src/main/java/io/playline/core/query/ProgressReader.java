package io.playline.core.query;

import io.playline.core.config.CoreConfig;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * Point progress: one pipelined HMGET of the user's records (plus the tombstones that can cover
 * them) answers from Redis. A miss is "no record" without an HBase read, misses being the common
 * case, unless {@code query.progress.hbase.fallback} is on; then the misses are one HBase get.
 * Either way records past their business's retention or covered by a Redis tombstone are left out.
 *
 * <p>Thread-safe; never blocks; stages complete on Redis or HBase I/O threads.
 */
final class ProgressReader {
  private final CoreConfig config;
  private final RedisTimeline redis;
  private final HBaseTimeline hbase;
  private final QueryMetrics metrics;
  private final LongSupplier clock;

  ProgressReader(CoreConfig config, RedisTimeline redis, HBaseTimeline hbase, QueryMetrics metrics, LongSupplier clock) {
    this.config = config;
    this.redis = redis;
    this.hbase = hbase;
    this.metrics = metrics;
    this.clock = clock;
  }

  /**
   * The records of {@code items} (validated, distinct) that exist, in their order; the tier that
   * answered is counted under {@code kind} ({@code progress}, or {@code progress_batch} for a
   * batch's lookup).
   */
  CompletionStage<List<HistoryRecord>> progress(String kind, long uid, List<ItemKey> items) {
    RetentionFilter filter = RetentionFilter.of(config.hbase(), List.of(), clock.getAsLong());
    List<String> members = new ArrayList<>(items.size());
    for (ItemKey item : items) {
      members.add(TimelinePosition.member(item.getBusinessValue(), item.getOid()));
    }
    return redis.lookup(uid, members).thenCompose(lookup -> {
      Map<String, HistoryRecord> found = new HashMap<>();
      List<String> misses = new ArrayList<>();
      for (int i = 0; i < members.size(); i++) {
        byte[] value = lookup.values().get(i);
        if (value == null) {
          misses.add(members.get(i));
        } else {
          keep(found, new TimelineEntry(members.get(i), -1, value), uid, filter, lookup.tombstones());
        }
      }
      if (misses.isEmpty() || !config.query().progressHBaseFallback()) {
        metrics.tier(kind, QueryMetrics.REDIS);
        return CompletableFuture.completedFuture(inOrder(members, found));
      }
      metrics.tier(kind, QueryMetrics.HBASE);
      metrics.hbaseRead();
      return hbase.items(uid, misses, filter.oldestOverall()).thenApply(entries -> {
        entries.forEach(e -> keep(found, e, uid, filter, lookup.tombstones()));
        return inOrder(members, found);
      });
    });
  }

  /** Adds the entry's record when it is readable, retained and not deleted. */
  private static void keep(Map<String, HistoryRecord> found, TimelineEntry entry, long uid, RetentionFilter filter,
      Tombstones tombstones) {
    HistoryRecord r = entry.record(uid);
    if (r != null && filter.keeps(entry.member(), r.getViewTimeMs())
        && !tombstones.covers(entry.member(), r.getViewTimeMs())) {
      found.put(entry.member(), r);
    }
  }

  private static List<HistoryRecord> inOrder(List<String> members, Map<String, HistoryRecord> found) {
    List<HistoryRecord> records = new ArrayList<>(found.size());
    for (String m : members) {
      HistoryRecord r = found.get(m);
      if (r != null) {
        records.add(r);
      }
    }
    return records;
  }
}
