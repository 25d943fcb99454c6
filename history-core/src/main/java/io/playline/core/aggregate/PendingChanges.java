package io.playline.core.aggregate;

import com.google.protobuf.ByteString;
import io.playline.core.write.RecoveryEntry;
import io.playline.proto.v1.HistoryRecord;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import org.jspecify.annotations.Nullable;

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
  // The recovery-log entries of the upserts merged here: once Kafka acknowledged all of these
  // changes, every entry may go. Emptied when any upsert is dropped (their entries must stay for
  // the job's sweep, and which entry listed which dropped upsert is not kept).
  private final Set<RecoveryEntry> entries = new LinkedHashSet<>();

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

  /** Upserts {@code record}, which the recovery log's {@code entry} lists (null: none). */
  void upsert(HistoryRecord record, @Nullable RecoveryEntry entry) {
    UserChanges u = user(record.getUid());
    int before = u.upsertCount();
    u.upsert(record);
    upserts += u.upsertCount() - before;
    if (entry != null) {
      entries.add(entry);
    }
  }

  /**
   * The recovery-log entries that may go once Kafka acknowledged every change here: every item
   * they list is here, or was covered by a later change that is.
   */
  Set<RecoveryEntry> entries() {
    return Collections.unmodifiableSet(entries);
  }

  /** Forgets every entry: they stay in Redis, and the job's sweep persists their items. */
  void forgetEntries() {
    entries.clear();
  }

  /** Deletes {@code items} at {@code timeMs}, one call whose recovery mark is {@code mark}. */
  void delete(long uid, List<ItemId> items, long timeMs, ByteString mark) {
    tombstone(uid, u -> {
      items.forEach(item -> u.delete(item, timeMs));
      u.controlMark(mark);
    });
  }

  /** Clears {@code businessMask} at {@code timeMs}, one call whose recovery mark is {@code mark}. */
  void clear(long uid, int businessMask, long timeMs, ByteString mark) {
    tombstone(uid, u -> {
      u.clear(businessMask, timeMs);
      u.controlMark(mark);
    });
  }

  private void tombstone(long uid, Consumer<UserChanges> op) {
    UserChanges u = user(uid);
    int beforeUpserts = u.upsertCount();
    int beforeTombstones = u.tombstoneCount();
    op.accept(u);
    upserts += u.upsertCount() - beforeUpserts;
    tombstones += u.tombstoneCount() - beforeTombstones;
  }

  /** Merges {@code newer} (changes that arrived later) into this; its users become the newest. */
  void mergeNewer(PendingChanges newer) {
    entries.addAll(newer.entries);
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
    if (dropped > 0) {
      forgetEntries();
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
