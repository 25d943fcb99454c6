package io.playline.core.aggregate;

import io.playline.proto.v1.HistoryRecord;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.function.LongPredicate;

/**
 * Every user's changes not yet acked by Kafka, with running counts. Users are kept least recently
 * written first, so {@link #dropOldestUpserts} sheds the users idle longest.
 *
 * <p>Not thread-safe: the aggregator guards the instance writers add to with its lock, and confines
 * the one it is sending to its flush thread.
 */
final class PendingChanges {
  // Access order: a write to a user moves the user to the end.
  private final LinkedHashMap<Long, UserChanges> users = new LinkedHashMap<>(64, 0.75f, true);
  private int upserts;
  private int tombstones;

  int upserts() {
    return upserts;
  }

  int tombstones() {
    return tombstones;
  }

  /** Upserts plus tombstones: what counts against writeback.max.pending. */
  int size() {
    return upserts + tombstones;
  }

  /** No changes (a user whose only write was covered by a tombstone may still hold an empty entry). */
  boolean isEmpty() {
    return size() == 0;
  }

  Collection<UserChanges> users() {
    return users.values();
  }

  void upsert(HistoryRecord record) {
    UserChanges u = user(record.getUid());
    int before = u.upsertCount();
    u.upsert(record);
    upserts += u.upsertCount() - before;
  }

  void delete(long uid, ItemId item, long timeMs) {
    UserChanges u = user(uid);
    int beforeUpserts = u.upsertCount();
    int beforeTombstones = u.tombstoneCount();
    u.delete(item, timeMs);
    upserts += u.upsertCount() - beforeUpserts;
    tombstones += u.tombstoneCount() - beforeTombstones;
  }

  void clear(long uid, int businessMask, long timeMs) {
    UserChanges u = user(uid);
    int beforeUpserts = u.upsertCount();
    int beforeTombstones = u.tombstoneCount();
    u.clear(businessMask, timeMs);
    upserts += u.upsertCount() - beforeUpserts;
    tombstones += u.tombstoneCount() - beforeTombstones;
  }

  /** Merges {@code newer} (changes that arrived later) into this; its users become the newest. */
  void mergeNewer(PendingChanges newer) {
    for (UserChanges n : newer.users.values()) {
      UserChanges u = users.get(n.uid());
      if (u == null) {
        users.put(n.uid(), n);
        upserts += n.upsertCount();
        tombstones += n.tombstoneCount();
      } else {
        int beforeUpserts = u.upsertCount();
        int beforeTombstones = u.tombstoneCount();
        u.mergeNewer(n);
        upserts += u.upsertCount() - beforeUpserts;
        tombstones += u.tombstoneCount() - beforeTombstones;
      }
    }
  }

  /**
   * Drops the upserts of the least recently written users until at most {@code keep} remain;
   * tombstones always stay. Returns how many upserts were dropped.
   */
  int dropOldestUpserts(int keep) {
    int dropped = 0;
    Iterator<UserChanges> it = users.values().iterator();
    while (upserts > keep && it.hasNext()) {
      UserChanges u = it.next();
      int n = u.dropUpserts();
      upserts -= n;
      dropped += n;
      if (u.tombstoneCount() == 0) {
        it.remove();
      }
    }
    return dropped;
  }

  /** Keeps only the users {@code keep} accepts. */
  void retainUsers(LongPredicate keep) {
    Iterator<UserChanges> it = users.values().iterator();
    while (it.hasNext()) {
      UserChanges u = it.next();
      if (!keep.test(u.uid())) {
        upserts -= u.upsertCount();
        tombstones -= u.tombstoneCount();
        it.remove();
      }
    }
  }

  private UserChanges user(long uid) {
    UserChanges u = users.get(uid);
    if (u == null) {
      u = new UserChanges(uid);
      users.put(uid, u);
    }
    return u;
  }
}
