package io.playline.job.consume;

import io.playline.job.JobMetrics;
import io.playline.job.redis.RecoveryMarks;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryChangeBatch;
import io.playline.proto.v1.HistoryClear;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemDelete;
import io.playline.proto.v1.ItemKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Resolves the write-back changes of one poll by time, not by position (events.proto): per user
 * and item the newest snapshot upsert is kept only when its view time is after every delete and
 * clear of that item anywhere in the poll; once Redis's current records are known, the newer of
 * Redis's record and the snapshot is written (the snapshot when Redis lost the record). Deletes and
 * clears pass through; HBase applies them by time. Malformed entries (no uid, an unknown business,
 * no oid, a negative time) are counted and left out; a clear naming only unknown businesses is
 * dropped rather than widened into a clear of everything.
 *
 * <p>Not thread-safe: one instance per poll attempt, on the consumer thread.
 */
final class ChangeResolver {
  private final JobMetrics metrics;
  private final Map<Long, UserChanges> users = new LinkedHashMap<>();

  ChangeResolver(JobMetrics metrics) {
    this.metrics = metrics;
  }

  /** Adds one Kafka record's batch; call in offset order per partition. */
  void add(HistoryChangeBatch batch) {
    for (HistoryChange change : batch.getChangesList()) {
      if (change.getUid() <= 0) {
        metrics.invalidEntry();
        continue;
      }
      UserChanges user = users.computeIfAbsent(change.getUid(), UserChanges::new);
      for (HistoryRecord r : change.getUpsertsList()) {
        if (!known(r.getBusiness()) || r.getOid() <= 0 || !validTime(r.getViewTimeMs())
            || (r.getUid() != 0 && r.getUid() != change.getUid())) {
          metrics.invalidEntry();
          continue;
        }
        user.upsert(r.getUid() == 0 ? r.toBuilder().setUid(change.getUid()).build() : r, batch.getFlushedAtMs());
      }
      for (ItemDelete d : change.getDeletesList()) {
        if (!known(d.getItem().getBusiness()) || d.getItem().getOid() <= 0 || !validTime(d.getDeleteTimeMs())) {
          metrics.invalidEntry();
          continue;
        }
        user.delete(d, batch.getFlushedAtMs());
      }
      for (HistoryClear c : change.getClearsList()) {
        HistoryClear valid = validClear(c);
        if (valid == null) {
          metrics.invalidEntry();
          continue;
        }
        user.clear(valid);
      }
    }
  }

  private static @Nullable HistoryClear validClear(HistoryClear c) {
    if (!validTime(c.getClearTimeMs())) {
      return null;
    }
    if (c.getBusinessesCount() == 0) {
      return c;
    }
    HistoryClear.Builder valid = HistoryClear.newBuilder().setClearTimeMs(c.getClearTimeMs());
    for (Business b : c.getBusinessesList()) {
      if (known(b)) {
        valid.addBusinesses(b);
      }
    }
    return valid.getBusinessesCount() == 0 ? null : valid.build();
  }

  /** A time HBase can stamp a cell or marker with: not negative, not its "now" (Long.MAX_VALUE). */
  private static boolean validTime(long timeMs) {
    return timeMs >= 0 && timeMs < Long.MAX_VALUE;
  }

  private static boolean known(Business b) {
    return b != Business.BUSINESS_UNSPECIFIED && b != Business.UNRECOGNIZED;
  }

  /** Per user, the items whose snapshot survived deletes and clears: what to read back from Redis. */
  Map<Long, List<ItemKey>> itemsToRead() {
    Map<Long, List<ItemKey>> items = new LinkedHashMap<>();
    for (UserChanges user : users.values()) {
      List<ItemKey> live = new ArrayList<>();
      for (Map.Entry<ItemKey, HistoryRecord> e : user.snapshots.entrySet()) {
        if (e.getValue().getViewTimeMs() > user.tombstone(e.getKey())) {
          live.add(e.getKey());
        }
      }
      if (!live.isEmpty()) {
        items.put(user.uid, live);
      }
    }
    return items;
  }

  /**
   * The writes for the sink given Redis's current records ({@code current}, per user and item, as
   * {@code RedisReadBack} answers): one change per user with anything to write.
   */
  List<HistoryChange> resolve(Map<Long, Map<ItemKey, HistoryRecord>> current) {
    return resolve(current, Map.of());
  }

  /**
   * As above, also dropping every upsert not newer than a Redis tombstone of its item ({@code
   * redisTombstones}: uid to item to delete/clear time), so a delete or clear that an earlier poll
   * applied still sticks against an older snapshot arriving later.
   */
  List<HistoryChange> resolve(Map<Long, Map<ItemKey, HistoryRecord>> current,
      Map<Long, Map<ItemKey, Long>> redisTombstones) {
    List<HistoryChange> writes = new ArrayList<>(users.size());
    for (UserChanges user : users.values()) {
      HistoryChange.Builder change = HistoryChange.newBuilder().setUid(user.uid);
      Map<ItemKey, HistoryRecord> inRedis = current.getOrDefault(user.uid, Map.of());
      Map<ItemKey, Long> tombs = redisTombstones.getOrDefault(user.uid, Map.of());
      for (Map.Entry<ItemKey, HistoryRecord> e : user.snapshots.entrySet()) {
        HistoryRecord snapshot = e.getValue();
        long tomb = Math.max(user.tombstone(e.getKey()), tombs.getOrDefault(e.getKey(), -1L));
        if (snapshot.getViewTimeMs() <= tomb) {
          metrics.droppedUpsert();
          continue;
        }
        HistoryRecord redis = inRedis.get(e.getKey());
        if (redis == null) {
          metrics.snapshotUsed();
          change.addUpserts(snapshot);
        } else if (redis.getViewTimeMs() > snapshot.getViewTimeMs()) {
          metrics.redisNewer();
          change.addUpserts(redis);
        } else {
          change.addUpserts(snapshot);
        }
      }
      change.addAllDeletes(user.deletes).addAllClears(user.clears);
      if (change.getUpsertsCount() + change.getDeletesCount() + change.getClearsCount() > 0) {
        writes.add(change.build());
      }
    }
    return writes;
  }

  /**
   * Adds the recovery marks this poll covers once persisted: every upserted or deleted item, each
   * up to the latest {@code flushed_at_ms} of the batches that carried it.
   */
  void addMarkClears(RecoveryMarks.Clears clears) {
    for (UserChanges user : users.values()) {
      user.markLimits.forEach((item, limit) -> clears.add(user.uid, item, limit));
    }
  }

  /** One user's changes across the poll. */
  private static final class UserChanges {
    final long uid;
    final Map<ItemKey, HistoryRecord> snapshots = new LinkedHashMap<>();
    final Map<ItemKey, Long> markLimits = new HashMap<>();
    final Map<ItemKey, Long> deleteTimes = new HashMap<>();
    final Map<Business, Long> businessClearTimes = new HashMap<>();
    final List<ItemDelete> deletes = new ArrayList<>();
    final List<HistoryClear> clears = new ArrayList<>();
    long clearAllTime = -1;

    UserChanges(long uid) {
      this.uid = uid;
    }

    void upsert(HistoryRecord r, long flushedAtMs) {
      ItemKey item = ItemKey.newBuilder().setBusiness(r.getBusiness()).setOid(r.getOid()).build();
      snapshots.merge(item, r, (a, b) -> b.getViewTimeMs() > a.getViewTimeMs() ? b : a);
      markLimits.merge(item, flushedAtMs, Math::max);
    }

    void delete(ItemDelete d, long flushedAtMs) {
      deletes.add(d);
      deleteTimes.merge(d.getItem(), d.getDeleteTimeMs(), Math::max);
      markLimits.merge(d.getItem(), flushedAtMs, Math::max);
    }

    void clear(HistoryClear c) {
      clears.add(c);
      if (c.getBusinessesCount() == 0) {
        clearAllTime = Math.max(clearAllTime, c.getClearTimeMs());
      }
      for (Business b : c.getBusinessesList()) {
        businessClearTimes.merge(b, c.getClearTimeMs(), Math::max);
      }
    }

    /** The latest delete or clear time covering {@code item} in this poll, or -1. */
    long tombstone(ItemKey item) {
      return Math.max(clearAllTime, Math.max(deleteTimes.getOrDefault(item, -1L),
          businessClearTimes.getOrDefault(item.getBusiness(), -1L)));
    }
  }
}
