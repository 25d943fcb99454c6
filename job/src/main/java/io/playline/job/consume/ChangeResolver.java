package io.playline.job.consume;

import com.google.protobuf.ByteString;
import io.playline.job.metrics.JobMetrics;
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
 * and item, once Redis's current records are known, the newer of Redis's record and the newest
 * snapshot upsert (the snapshot when Redis lost the record) is written when its view time is after
 * every delete and clear of that item in the poll and in Redis. Deletes and
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
      user.markStampUs = Math.max(user.markStampUs, change.getUpsertsMarkStampUs());
      user.controlMarks.addAll(change.getControlMarksList());
      for (HistoryRecord r : change.getUpsertsList()) {
        if (!known(r.getBusiness()) || r.getOid() <= 0 || !validTime(r.getViewTimeMs())
            || (r.getUid() != 0 && r.getUid() != change.getUid())) {
          metrics.invalidEntry();
          continue;
        }
        user.upsert(r.getUid() == 0 ? r.toBuilder().setUid(change.getUid()).build() : r);
      }
      for (ItemDelete d : change.getDeletesList()) {
        if (!known(d.getItem().getBusiness()) || d.getItem().getOid() <= 0 || !validTime(d.getDeleteTimeMs())) {
          metrics.invalidEntry();
          continue;
        }
        user.delete(d);
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

  /**
   * Per user, every item with a snapshot upsert: what to read back from Redis. Covered ones too: a
   * write of the item after the delete may be in Redis only, and its mark is cleared with the rest.
   */
  Map<Long, List<ItemKey>> itemsToRead() {
    Map<Long, List<ItemKey>> items = new LinkedHashMap<>();
    for (UserChanges user : users.values()) {
      if (!user.snapshots.isEmpty()) {
        items.put(user.uid, new ArrayList<>(user.snapshots.keySet()));
      }
    }
    return items;
  }

  /**
   * The writes for the sink given Redis's current records ({@code current}, per user and item, as
   * {@code RedisReadBack} answers): one change per user with anything to write.
   */
  List<HistoryChange> resolve(Map<Long, Map<ItemKey, HistoryRecord>> current) {
    return resolve(current, Map.of(), Map.of());
  }

  /**
   * As above, also dropping every upsert not newer than a Redis tombstone of its item ({@code
   * redisTombstones}: uid to item to delete/clear time), so a delete or clear that an earlier poll
   * applied still sticks against an older snapshot arriving later; and, for an item Redis holds no
   * record of, every upsert not newer than the user's eviction floor ({@code floors}: uid to the
   * {@code ~e} time of delete_history.lua), as write_history.lua refuses it: the delete that
   * covered it may be one whose tombstone was evicted.
   */
  List<HistoryChange> resolve(Map<Long, Map<ItemKey, HistoryRecord>> current,
      Map<Long, Map<ItemKey, Long>> redisTombstones, Map<Long, Long> floors) {
    List<HistoryChange> writes = new ArrayList<>(users.size());
    for (UserChanges user : users.values()) {
      HistoryChange.Builder change = HistoryChange.newBuilder().setUid(user.uid);
      Map<ItemKey, HistoryRecord> inRedis = current.getOrDefault(user.uid, Map.of());
      // A user Redis could not answer for: the poll persists its snapshot but leaves its marks.
      user.readBack = current.containsKey(user.uid);
      Map<ItemKey, Long> tombs = redisTombstones.getOrDefault(user.uid, Map.of());
      long floor = floors.getOrDefault(user.uid, -1L);
      for (Map.Entry<ItemKey, HistoryRecord> e : user.snapshots.entrySet()) {
        HistoryRecord snapshot = e.getValue();
        HistoryRecord redis = inRedis.get(e.getKey());
        boolean redisNewer = redis != null && redis.getViewTimeMs() > snapshot.getViewTimeMs();
        HistoryRecord newest = redisNewer ? redis : snapshot;
        long tomb = Math.max(user.tombstone(e.getKey()), tombs.getOrDefault(e.getKey(), -1L));
        if (redis == null) {
          tomb = Math.max(tomb, floor);
        }
        if (newest.getViewTimeMs() <= tomb) {
          metrics.droppedUpsert();
          continue;
        }
        if (redisNewer) {
          metrics.redisNewer();
        } else if (redis == null) {
          metrics.snapshotUsed();
        }
        change.addUpserts(newest);
      }
      change.addAllDeletes(user.deletes).addAllClears(user.clears);
      if (change.getUpsertsCount() + change.getDeletesCount() + change.getClearsCount() > 0) {
        writes.add(change.build());
      }
    }
    return writes;
  }

  /**
   * Adds the recovery marks this poll covers once persisted: every item with a snapshot upsert (all
   * read back from Redis), up to the user's highest {@code upserts_mark_stamp_us} in the poll, and
   * the marks of the deletes and clears the poll carried. Why the highest stamp is enough: a write
   * whose mark is scored at most it ran in Redis before that stamp was issued, so before the
   * snapshot carrying it, so before this poll's read-back, which therefore saw it. Hence no upsert
   * mark of a user whose read-back failed is cleared ({@link #resolve} notes which were read).
   */
  void addMarkClears(RecoveryMarks.Clears clears) {
    for (UserChanges user : users.values()) {
      if (user.markStampUs > 0 && user.readBack) {
        user.snapshots.keySet().forEach(item -> clears.add(user.uid, item, user.markStampUs));
      }
      user.controlMarks.forEach(mark -> clears.addControl(user.uid, mark.toByteArray()));
    }
  }

  /** One user's changes across the poll. */
  private static final class UserChanges {
    final long uid;
    final Map<ItemKey, HistoryRecord> snapshots = new LinkedHashMap<>();
    final List<ByteString> controlMarks = new ArrayList<>();
    long markStampUs;
    boolean readBack;
    final Map<ItemKey, Long> deleteTimes = new HashMap<>();
    final Map<Business, Long> businessClearTimes = new HashMap<>();
    final List<ItemDelete> deletes = new ArrayList<>();
    final List<HistoryClear> clears = new ArrayList<>();
    long clearAllTime = -1;

    UserChanges(long uid) {
      this.uid = uid;
    }

    void upsert(HistoryRecord r) {
      ItemKey item = ItemKey.newBuilder().setBusiness(r.getBusiness()).setOid(r.getOid()).build();
      snapshots.merge(item, r, (a, b) -> b.getViewTimeMs() > a.getViewTimeMs() ? b : a);
    }

    void delete(ItemDelete d) {
      deletes.add(d);
      deleteTimes.merge(d.getItem(), d.getDeleteTimeMs(), Math::max);
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
