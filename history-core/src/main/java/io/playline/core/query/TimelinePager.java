package io.playline.core.query;

import io.playline.core.config.CoreConfig;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryPage;
import io.playline.proto.v1.HistoryRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pages one user's timeline across both tiers, newest first, strictly after a cursor.
 *
 * <p><b>Redis first.</b> A warm timeline ({@link RedisTimeline}) holds every item newer than its
 * oldest entry, so while a page fits in it the page is Redis's alone. When the timeline runs out
 * within a page (or the cursor is already past it) and it is not known complete, the page goes on
 * in HBase: the newest cells of the row after the cursor, less what Redis decides: items the Redis
 * timeline holds (served only at their Redis position; HBase may have an older version), items a
 * Redis tombstone covers (the job may not have applied the delete yet) and items past retention.
 * Both tiers' entries are merged by one order ({@link TimelinePosition}). When the HBase read was
 * truncated the page stops at its boundary, which becomes the cursor, so nothing is skipped.
 *
 * <p><b>Cold users.</b> A user without a marked timeline (none at all, or one written by heartbeats
 * only) is warmed first: the newest cells of the row are applied to Redis with the write path's
 * last-write-wins and tombstone rules, so a heartbeat or delete racing the warm-up always wins, and
 * then the page is read again from the now warm timeline.
 *
 * <p>Thread-safe; never blocks; stages complete on Redis or HBase I/O threads.
 */
final class TimelinePager {
  private static final Logger log = LoggerFactory.getLogger(TimelinePager.class);

  private final CoreConfig config;
  private final RedisTimeline redis;
  private final HBaseTimeline hbase;
  private final QueryMetrics metrics;
  private final LongSupplier clock;

  TimelinePager(CoreConfig config, RedisTimeline redis, HBaseTimeline hbase, QueryMetrics metrics, LongSupplier clock) {
    this.config = config;
    this.redis = redis;
    this.hbase = hbase;
    this.metrics = metrics;
    this.clock = clock;
  }

  /** Up to {@code limit} records of {@code businesses} (empty = all) after {@code after}; inputs validated. */
  CompletionStage<HistoryPage> page(long uid, List<Business> businesses, @Nullable TimelinePosition after, int limit) {
    return page(uid, RetentionFilter.of(config.hbase(), businesses, clock.getAsLong()), after, limit, true);
  }

  private CompletionStage<HistoryPage> page(long uid, RetentionFilter filter, @Nullable TimelinePosition after,
      int limit, boolean mayWarm) {
    return redis.read(uid, after, limit, filter.oldestByBusiness()).thenCompose(slice -> {
      if (!slice.warm() && mayWarm && redis.markable()) {
        return warmUp(uid, filter.nowMs()).thenCompose(applied -> page(uid, filter, after, limit, false));
      }
      if (!slice.exhausted()) {
        metrics.tier("list", QueryMetrics.REDIS);
        return CompletableFuture.completedFuture(page(uid, slice.entries(), slice.lastExamined()));
      }
      if (slice.complete(config.maxItemsPerUser())) {
        metrics.tier("list", QueryMetrics.REDIS);
        return CompletableFuture.completedFuture(page(uid, slice.entries(), null));
      }
      metrics.tier("list", QueryMetrics.HBASE);
      return continueInHBase(uid, filter, after, limit, slice);
    });
  }

  /** Reads the newest of the row into Redis; completes with the number of records applied. */
  private CompletionStage<Long> warmUp(long uid, long nowMs) {
    RetentionFilter all = RetentionFilter.of(config.hbase(), List.of(), nowMs);
    metrics.hbaseRead();
    return hbase.newest(uid, null, Set.of(), all.oldestOverall(), config.maxItemsPerUser()).thenCompose(slice -> {
      List<TimelineEntry> kept = new ArrayList<>();
      for (TimelineEntry e : slice.entries()) {
        if (kept.size() == config.maxItemsPerUser()) {
          break;
        }
        if (all.keeps(e)) {
          kept.add(e);
        }
      }
      return redis.warm(uid, kept, !slice.truncated());
    }).thenApply(applied -> {
      metrics.warmedUp(applied);
      log.debug("Warmed uid {}: {} records applied", uid, applied);
      return applied;
    });
  }

  private CompletionStage<HistoryPage> continueInHBase(long uid, RetentionFilter filter,
      @Nullable TimelinePosition after, int limit, RedisSlice slice) {
    metrics.hbaseRead();
    return hbase.newest(uid, after, filter.businessNumbers(), filter.oldestOverall(), hbaseWant(limit)).thenCompose(h -> {
      Set<String> inPage = new HashSet<>();
      slice.entries().forEach(e -> inPage.add(e.member()));
      List<TimelineEntry> candidates = new ArrayList<>();
      for (TimelineEntry e : h.entries()) {
        if (filter.keeps(e) && !slice.tombstones().covers(e) && !inPage.contains(e.member())) {
          candidates.add(e);
        }
      }
      if (candidates.isEmpty() || slice.state() == RedisSlice.ABSENT) {
        return CompletableFuture.completedFuture(merge(uid, slice.entries(), candidates, h, limit));
      }
      List<String> members = candidates.stream().map(TimelineEntry::member).toList();
      return redis.present(uid, members).thenApply(present -> {
        List<TimelineEntry> absent = new ArrayList<>(candidates.size());
        for (TimelineEntry e : candidates) {
          if (!present.contains(e.member())) {
            absent.add(e);
          }
        }
        return merge(uid, slice.entries(), absent, h, limit);
      });
    });
  }

  /**
   * How many records a page's HBase read keeps: the page twice over plus a few, since some of what
   * HBase returns is dropped here (items Redis holds at a newer position, tombstoned or expired
   * ones). A page that loses more than that ends early at the read's boundary, which is then its
   * cursor: shorter, never a gap.
   */
  private static int hbaseWant(int limit) {
    return 2 * limit + 16;
  }

  /**
   * Merges the page's Redis entries with the HBase entries Redis does not hold. A truncated HBase
   * read only covers the row down to its oldest kept cell, so the page ends there at the latest.
   */
  private static HistoryPage merge(long uid, List<TimelineEntry> fromRedis, List<TimelineEntry> fromHBase,
      HBaseSlice read, int limit) {
    List<TimelineEntry> merged = new ArrayList<>(fromRedis.size() + fromHBase.size());
    merged.addAll(fromRedis);
    merged.addAll(fromHBase);
    merged.sort(TimelineEntry.NEWEST_FIRST);
    TimelinePosition boundary = read.boundary();
    int covered = merged.size();
    if (boundary != null) {
      covered = 0;
      while (covered < merged.size() && !merged.get(covered).after(boundary)) {
        covered++;
      }
    }
    if (covered > limit) {
      return page(uid, merged.subList(0, limit), merged.get(limit - 1).position());
    }
    return page(uid, merged.subList(0, covered), boundary);
  }

  /** A page of {@code entries}; {@code next} null = the last page. */
  private static HistoryPage page(long uid, List<TimelineEntry> entries, @Nullable TimelinePosition next) {
    HistoryPage.Builder page = HistoryPage.newBuilder();
    for (TimelineEntry e : entries) {
      HistoryRecord r = e.record(uid);
      if (r != null) {
        page.addRecords(r);
      } else {
        log.warn("Skipping an unreadable history record of uid {}: {}", uid, e.member());
      }
    }
    if (next != null) {
      page.setNext(next.toCursor()).setHasMore(true);
    }
    return page.build();
  }
}
