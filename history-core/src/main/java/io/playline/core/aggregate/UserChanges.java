package io.playline.core.aggregate;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryClear;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemDelete;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One user's changes since the last flush, kept the way the job resolves them (by time, not by
 * order): the latest upsert per item by view time, the latest delete per item, the latest clear
 * per set of businesses; an upsert not after a delete or clear that covers its item is dropped,
 * since the job would drop it too. Every operation is commutative, so merging two of these in
 * either order gives the same result.
 *
 * <p>Not thread-safe: guarded by the aggregator's lock or confined to its flush thread.
 */
final class UserChanges {
  /** A clear's business mask for "every business": bit i is business number i; 0 means all. */
  static final int ALL_BUSINESSES = 0;

  private final long uid;
  private final Map<ItemId, HistoryRecord> upserts = new HashMap<>();
  private final Map<ItemId, Long> deletes = new HashMap<>();
  private final Map<Integer, Long> clears = new HashMap<>();
  private final List<ByteString> controlMarks = new ArrayList<>(0);

  UserChanges(long uid) {
    this.uid = uid;
  }

  long uid() {
    return uid;
  }

  int upsertCount() {
    return upserts.size();
  }

  int tombstoneCount() {
    return deletes.size() + clears.size();
  }

  /** Carries the recovery mark of a delete or clear call, for the job to remove once persisted. */
  void controlMark(ByteString mark) {
    controlMarks.add(mark);
  }

  /** Upserts {@code record}, unless a tombstone here covers it; the latest view time wins. */
  void upsert(HistoryRecord record) {
    ItemId item = ItemId.of(record);
    if (!covered(item, record.getViewTimeMs())) {
      // Ties go to the later arrival: Redis applied it after the earlier one.
      upserts.merge(item, record, (old, neu) -> neu.getViewTimeMs() >= old.getViewTimeMs() ? neu : old);
    }
  }

  void delete(ItemId item, long timeMs) {
    deletes.merge(item, timeMs, Math::max);
    HistoryRecord r = upserts.get(item);
    if (r != null && r.getViewTimeMs() <= timeMs) {
      upserts.remove(item);
    }
  }

  void clear(int businessMask, long timeMs) {
    clears.merge(businessMask, timeMs, Math::max);
    upserts.values().removeIf(r -> covers(businessMask, r.getBusinessValue()) && r.getViewTimeMs() <= timeMs);
  }

  /** Merges {@code newer} (changes that arrived later) into this. */
  void mergeNewer(UserChanges newer) {
    newer.deletes.forEach(this::delete);
    newer.clears.forEach(this::clear);
    newer.upserts.values().forEach(this::upsert);
    controlMarks.addAll(newer.controlMarks);
  }

  /** Drops every upsert (never a tombstone); returns how many. */
  int dropUpserts() {
    int n = upserts.size();
    upserts.clear();
    return n;
  }

  private boolean covered(ItemId item, long viewTimeMs) {
    Long deleted = deletes.get(item);
    if (deleted != null && viewTimeMs <= deleted) {
      return true;
    }
    for (Map.Entry<Integer, Long> c : clears.entrySet()) {
      if (covers(c.getKey(), item.business()) && viewTimeMs <= c.getValue()) {
        return true;
      }
    }
    return false;
  }

  private static boolean covers(int businessMask, int business) {
    return businessMask == ALL_BUSINESSES || (business < 31 && (businessMask & (1 << business)) != 0);
  }

  /** The mask of {@code businesses} (empty = all); rejects unspecified and unknown kinds. */
  static int mask(List<Business> businesses) {
    int mask = ALL_BUSINESSES;
    for (Business b : businesses) {
      if (b == Business.BUSINESS_UNSPECIFIED || b == Business.UNRECOGNIZED) {
        throw new IllegalArgumentException("businesses: " + businesses + " (expected: known kinds only)");
      }
      mask |= 1 << b.getNumber();
    }
    return mask;
  }

  /**
   * This user's changes as messages of at most {@code maxBytes} serialized each (one entry larger
   * than that travels alone): usually one, more only for a user with very many changes.
   * Tombstones come first and the control marks last, so a mark is removed only once everything
   * before it is persisted. No piece carries an upserts' mark stamp: the recovery log's entries of
   * these upserts go once Kafka acknowledged them ({@link PendingChanges#entries()}), not once the
   * job persisted them.
   */
  List<HistoryChange> pieces(int maxBytes) {
    Pieces p = new Pieces(uid, maxBytes);
    clears.forEach((mask, time) -> {
      HistoryClear c = toClear(mask, time);
      p.add(4, c, b -> b.addClears(c));
    });
    deletes.forEach((item, time) -> {
      ItemDelete d = ItemDelete.newBuilder().setItem(item.toKey()).setDeleteTimeMs(time).build();
      p.add(3, d, b -> b.addDeletes(d));
    });
    upserts.values().forEach(r -> p.add(2, r, b -> b.addUpserts(r)));
    controlMarks.forEach(m -> p.add(CodedOutputStream.computeBytesSize(6, m), b -> b.addControlMarks(m)));
    return p.finish();
  }

  private static HistoryClear toClear(int mask, long timeMs) {
    HistoryClear.Builder c = HistoryClear.newBuilder().setClearTimeMs(timeMs);
    for (int business = 1; business < 31; business++) {
      if (mask != ALL_BUSINESSES && (mask & (1 << business)) != 0) {
        c.addBusinessesValue(business);
      }
    }
    return c.build();
  }

  /** Packs entries into HistoryChange messages greedily by serialized size. */
  private static final class Pieces {
    private final long uid;
    private final int maxBytes;
    private final List<HistoryChange> out = new ArrayList<>(1);
    private HistoryChange.Builder builder;
    private int size;
    private int entries;

    Pieces(long uid, int maxBytes) {
      this.uid = uid;
      this.maxBytes = maxBytes;
      this.builder = fresh();
    }

    private HistoryChange.Builder fresh() {
      size = CodedOutputStream.computeInt64Size(1, uid);
      entries = 0;
      return HistoryChange.newBuilder().setUid(uid);
    }

    void add(int field, MessageLite entry, Consumer<HistoryChange.Builder> adder) {
      add(CodedOutputStream.computeMessageSize(field, entry), adder);
    }

    void add(int entrySize, Consumer<HistoryChange.Builder> adder) {
      if (entries > 0 && size + entrySize > maxBytes) {
        out.add(builder.build());
        builder = fresh();
      }
      adder.accept(builder);
      size += entrySize;
      entries++;
    }

    List<HistoryChange> finish() {
      if (entries > 0) {
        out.add(builder.build());
      }
      return out;
    }
  }
}
