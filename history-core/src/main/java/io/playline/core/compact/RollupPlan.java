package io.playline.core.compact;

import io.playline.core.config.HBaseLayout;
import io.playline.core.store.CompactedIndex;
import io.playline.core.store.HistoryChunks;
import io.playline.core.store.TimelineOrder;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ChunkRef;
import io.playline.proto.v1.HistoryChunk;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.client.Put;
import org.jspecify.annotations.Nullable;

/**
 * What one roll-up changes, decided from what it read and touching no store: the user's live cells
 * and current chunks merged (last write wins by view time; ties keep the chunked copy), records a
 * tombstone of the index covers or past their business's retention dropped, the newest {@code keep}
 * live records left live, every other record bound for the new version's chunks; which current
 * chunks can be kept as they are ({@link #kept}); and then the new version's chunk layout ({@link
 * #layout}). {@link HistoryCompactor} reads before and writes after it. Not thread-safe; one per
 * roll-up.
 */
final class RollupPlan {
  /** The new version's chunks in order (kept ones as they are), the rows of the new ones, their stored bytes. */
  record Layout(List<ChunkRef> refs, List<Put> puts, long writtenBytes) {}

  /** One item's record and where it came from: a live cell, or the chunk of that number (-1 for live). */
  private record Candidate(HistoryRecord record, @Nullable LiveCell live, int chunk) {}

  private final List<ChunkRef> refs;
  /** Per current chunk: it lost a record (an older copy, a tombstone, retention, the TTL), so it is rewritten. */
  private final boolean[] changed;
  /** Live cells deleted by this roll-up: moved into chunks, or dropped. */
  private final List<LiveCell> gone = new ArrayList<>();
  private final List<LiveCell> moved = new ArrayList<>();
  /** The new version's records, newest first, each with where it came from. */
  private final List<Candidate> toChunks = new ArrayList<>();
  private final List<ChunkRef> kept;
  private int dropped;
  private int chunkedRecords;

  private RollupPlan(List<ChunkRef> refs) {
    this.refs = refs;
    this.changed = new boolean[refs.size()];
    this.kept = new ArrayList<>();
  }

  /**
   * Merges {@code live} with {@code chunked} (the records of each of {@code index}'s chunks, in
   * index order) as of {@code nowMs}.
   */
  static RollupPlan merge(CompactedIndex index, List<List<HistoryRecord>> chunked, List<LiveCell> live, long nowMs,
      int keep, HBaseLayout layout) {
    RollupPlan plan = new RollupPlan(index.chunks());
    Map<String, Candidate> byItem = new HashMap<>();
    for (int n = 0; n < chunked.size(); n++) {
      plan.changed[n] = chunked.get(n).size() != plan.refs.get(n).getCount(); // expired by the TTL
      for (HistoryRecord r : chunked.get(n)) {
        plan.chunkedRecords++;
        plan.lost(offer(byItem, new Candidate(r, null, n)));
      }
    }
    for (LiveCell cell : live) {
      plan.lost(offer(byItem, new Candidate(cell.record(), cell, -1)));
    }
    List<Candidate> survivors = new ArrayList<>(byItem.size());
    for (Candidate c : byItem.values()) {
      HistoryRecord r = c.record();
      if (index.covers(r.getBusinessValue(), r.getOid(), r.getViewTimeMs()) || expired(r, nowMs, layout)) {
        plan.lost(c);
      } else {
        survivors.add(c);
      }
    }
    survivors.sort((a, b) -> TimelineOrder.NEWEST_FIRST.compare(a.record(), b.record()));
    // What the new version holds: every chunked survivor, and the live ones past the newest `keep`.
    for (int i = 0; i < survivors.size(); i++) {
      Candidate c = survivors.get(i);
      if (c.live() == null) {
        plan.toChunks.add(c);
      } else if (i >= keep) {
        plan.toChunks.add(c);
        plan.moved.add(c.live());
      }
    }
    plan.kept.addAll(plan.keptChunks());
    plan.gone.addAll(plan.moved);
    return plan;
  }

  /** A record that lost (to a newer copy, a tombstone or retention) is dropped from where it was. */
  private void lost(@Nullable Candidate loser) {
    if (loser == null) {
      return;
    }
    dropped++;
    if (loser.live() != null) {
      gone.add(loser.live());
    } else {
      changed[loser.chunk()] = true;
    }
  }

  /** Whether the roll-up changes anything: a record moves or is dropped, a tombstone is folded, a chunk is rewritten. */
  boolean needed(CompactedIndex index) {
    return !moved.isEmpty() || dropped > 0 || !index.tombstones().isEmpty() || kept.size() != refs.size();
  }

  /** The current chunks the new version keeps as they are. */
  List<ChunkRef> kept() {
    return kept;
  }

  /** The live cells to delete once the new index is written: moved into chunks, or dropped. */
  List<LiveCell> gone() {
    return gone;
  }

  int moved() {
    return moved.size();
  }

  int dropped() {
    return dropped;
  }

  /** Records in the new version's chunks. */
  int toChunks() {
    return toChunks.size();
  }

  /** Records the current chunks held (as read). */
  int chunkedRecords() {
    return chunkedRecords;
  }

  /** Adds {@code c} unless a newer copy of its item is there; returns the copy that lost, if any. */
  private static @Nullable Candidate offer(Map<String, Candidate> byItem, Candidate c) {
    String member = TimelineOrder.member(c.record().getBusinessValue(), c.record().getOid());
    Candidate there = byItem.get(member);
    if (there == null) {
      byItem.put(member, c);
      return null;
    }
    if (c.record().getViewTimeMs() > there.record().getViewTimeMs()) {
      byItem.put(member, c);
      return there;
    }
    return c;
  }

  private static boolean expired(HistoryRecord r, long nowMs, HBaseLayout layout) {
    Business b = Business.forNumber(r.getBusinessValue());
    Duration retention = b == null ? layout.retention() : layout.retention(b);
    return r.getViewTimeMs() < nowMs - retention.toMillis();
  }

  /**
   * The chunks the new version keeps as they are: unchanged, and still one unbroken run of the new
   * version's records (no record moved in among them), so chunks stay disjoint in the timeline.
   */
  private List<ChunkRef> keptChunks() {
    int[] first = new int[refs.size()];
    int[] count = new int[refs.size()];
    Arrays.fill(first, -1);
    for (int i = 0; i < toChunks.size(); i++) {
      int n = toChunks.get(i).chunk();
      if (n >= 0) {
        if (first[n] < 0) {
          first[n] = i;
        }
        count[n]++;
      }
    }
    List<ChunkRef> out = new ArrayList<>();
    for (int n = 0; n < refs.size(); n++) {
      boolean unbroken = first[n] >= 0 && count[n] == refs.get(n).getCount();
      for (int i = first[n]; unbroken && i < first[n] + count[n]; i++) {
        unbroken = i < toChunks.size() && toChunks.get(i).chunk() == n;
      }
      if (!changed[n] && unbroken) {
        out.add(refs.get(n));
      }
    }
    return out;
  }

  /**
   * The new version's chunks in order: kept ones as they are, the records between them in new
   * chunks of at most {@code chunkBytes}, rows named by {@code rollupId} in {@code family}.
   */
  Layout layout(long uid, long rollupId, byte[] family, int chunkBytes) {
    Set<ChunkRef> keep = new HashSet<>(kept);
    List<ChunkRef> out = new ArrayList<>();
    List<Put> puts = new ArrayList<>();
    long written = 0;
    List<HistoryRecord> pending = new ArrayList<>();
    for (int i = 0; i < toChunks.size(); ) {
      Candidate c = toChunks.get(i);
      if (c.chunk() >= 0 && keep.contains(refs.get(c.chunk()))) {
        written += writeNew(uid, rollupId, family, chunkBytes, pending, out, puts);
        ChunkRef k = refs.get(c.chunk());
        out.add(k);
        i += k.getCount();
      } else {
        pending.add(c.record());
        i++;
      }
    }
    written += writeNew(uid, rollupId, family, chunkBytes, pending, out, puts);
    return new Layout(out, puts, written);
  }

  /** Splits {@code pending} into new chunks appended to {@code out}; returns their stored bytes. */
  private static long writeNew(long uid, long rollupId, byte[] family, int chunkBytes, List<HistoryRecord> pending,
      List<ChunkRef> out, List<Put> puts) {
    long bytes = 0;
    for (List<HistoryRecord> part : split(pending, chunkBytes)) {
      HistoryChunk message = HistoryChunks.raw(part);
      byte[] cell = HistoryChunks.encode(part);
      HistoryRecord newest = part.get(0);
      HistoryRecord oldest = part.get(part.size() - 1);
      int businesses = 0;
      for (HistoryRecord r : part) {
        businesses |= HistoryChunks.businessBit(r.getBusinessValue());
      }
      int number = puts.size();
      out.add(ChunkRef.newBuilder()
          .setCount(part.size())
          .setNewestTimeMs(newest.getViewTimeMs()).setNewestItem(item(newest))
          .setOldestTimeMs(oldest.getViewTimeMs()).setOldestItem(item(oldest))
          .setStoredBytes(cell.length)
          .setRawBytes(message.getSerializedSize())
          .setRollupId(rollupId)
          .setNumber(number)
          .setBusinesses(businesses)
          .build());
      puts.add(new Put(HistoryChunks.chunkRow(uid, rollupId, number))
          .addColumn(family, HistoryChunks.CHUNK, newest.getViewTimeMs(), cell));
      bytes += cell.length;
    }
    pending.clear();
    return bytes;
  }

  /** Newest first, cut where the next record would take a chunk past {@code chunkBytes}. */
  private static List<List<HistoryRecord>> split(List<HistoryRecord> newestFirst, int chunkBytes) {
    List<List<HistoryRecord>> parts = new ArrayList<>();
    List<HistoryRecord> part = new ArrayList<>();
    long bytes = 0;
    for (HistoryRecord r : newestFirst) {
      // A repeated field's element costs its size, a length varint and a tag byte.
      long size = r.getSerializedSize() + 6L;
      if (!part.isEmpty() && bytes + size > chunkBytes) {
        parts.add(part);
        part = new ArrayList<>();
        bytes = 0;
      }
      part.add(r);
      bytes += size;
    }
    if (!part.isEmpty()) {
      parts.add(part);
    }
    return parts;
  }

  private static ItemKey item(HistoryRecord r) {
    return ItemKey.newBuilder().setBusinessValue(r.getBusinessValue()).setOid(r.getOid()).build();
  }
}
