package io.playline.core.query;

import io.lettuce.core.KeyValue;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.playline.core.config.CoreConfig;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.core.store.RedisScript;
import io.playline.core.store.Scripts;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * The Redis tier of the read path: timeline pages, record lookups and warm-ups, over the shared
 * auto-flushing connection (commands of one read issued together, so they share a flush; scripts
 * by EVALSHA with EVAL fallback).
 *
 * <p><b>Warm markers.</b> A timeline written only by heartbeats says nothing about HBase, so the
 * first list of such a user reads the newest of the HBase row and warms it in ({@code
 * warm_history.lua}), which leaves a marker member scored {@code +inf}: {@code ~w} (the timeline
 * holds every item newer than its oldest entry, so pages are served from Redis until it runs out)
 * or {@code ~c} (the HBase read held the whole row, so while the timeline never filled up there is
 * nothing more to read). Markers never count as entries, are never trimmed, and are only weakened
 * by writers. The marker costs one slot of {@code history.redis.max.items}; below 2 slots no marker
 * is set and every list that runs out of Redis reads HBase.
 *
 * <p>Thread-safe; never blocks; stages complete on Lettuce's I/O threads.
 */
final class RedisTimeline {
  /** Entries one page read examines at most, so a sparse business filter cannot run a script long. */
  static final int SCAN_BUDGET = 4096;
  /** Markers a first page's range read may hold besides entries. */
  private static final int MARKERS = 2;
  /** Largest range read of the plain path; a longer page goes to the script. */
  private static final int PLAIN_MAX_ENTRIES = 1024;
  private static final byte[] MARKER_COMPLETE = ascii(RedisKeys.TIMELINE_COMPLETE);
  private static final byte[] MARKER_WARM = ascii(RedisKeys.TIMELINE_WARM);

  private final CoreConfig config;
  private final RedisKeys keys;
  private final RedisClusterAsyncCommands<byte[], byte[]> redis;
  private final QueryMetrics metrics;

  RedisTimeline(CoreConfig config, RedisConnections connections, QueryMetrics metrics) {
    this.config = config;
    this.metrics = metrics;
    this.keys = new RedisKeys(config.redisKeyPrefix());
    this.redis = connections.shared();
  }

  /** Whether timelines can carry a warm marker (it takes one of the max items slots). */
  boolean markable() {
    return config.maxItemsPerUser() >= 2;
  }

  /**
   * Up to {@code limit} entries after {@code after} whose business has an oldest kept time in
   * {@code oldest} (indexed by business number 1..6; {@link Long#MAX_VALUE} = filtered out) not
   * after their view time.
   *
   * <p>Plain commands first, in two pipelined round trips: {@code ZCARD} and one {@code
   * ZREVRANGEBYSCORE ... WITHSCORES LIMIT 0 n} of just what the page needs (plus {@code ZMSCORE} of
   * the markers past the first page), then one {@code HMGET} of the page's records (and {@code
   * HGETALL} of the tombstones when the read may go on in HBase). That costs Redis what reading the
   * page by hand costs. When those entries cannot settle the page (a filter that skips some of them,
   * more members tied at the cursor, a record removed between the two round trips) the page is read
   * again by {@code read_timeline.lua}, which walks the timeline in one atomic call; both give the
   * same answer ({@code PlainTimelineReadTest}).
   */
  CompletionStage<RedisSlice> read(long uid, @Nullable TimelinePosition after, int limit, long[] oldest) {
    // The page, one more (does anything follow?), and the markers on a first page or the cursor's
    // own entry (read again by the inclusive range) on a later one.
    int want = limit + 1 + (after == null ? MARKERS : 1);
    if (limit < 1 || want > PLAIN_MAX_ENTRIES) {
      return readScript(uid, after, limit, oldest);
    }
    byte[] timeline = keys.timeline(uid);
    CompletionStage<List<Double>> markers = after == null
        ? CompletableFuture.completedFuture(List.of())
        : redis.zmscore(timeline, MARKER_COMPLETE, MARKER_WARM);
    CompletionStage<Long> size = redis.zcard(timeline);
    Range<Long> range = after == null ? Range.unbounded()
        : Range.from(Range.Boundary.unbounded(), Range.Boundary.including(after.viewTimeMs()));
    CompletionStage<List<ScoredValue<byte[]>>> head = redis.zrevrangebyscoreWithScores(timeline, range,
        Limit.create(0, want));
    return head.thenCombine(size, RangeAndSize::new)
        .thenCombine(markers, (rs, m) -> PlainHead.settle(rs.range(), rs.size(), m, after, limit, want, oldest))
        .thenCompose(settled -> settled == null ? readScript(uid, after, limit, oldest) : finish(uid, settled, after,
        limit, oldest));
  }

  private record RangeAndSize(List<ScoredValue<byte[]>> range, long size) {}

  /** Reads the records of a settled page (and the tombstones when needed); the script when one is gone. */
  private CompletionStage<RedisSlice> finish(long uid, PlainHead head, @Nullable TimelinePosition after, int limit,
      long[] oldest) {
    CompletionStage<Tombstones> tombs = head.needsTombstones()
        ? redis.hgetall(keys.tombstones(uid)).thenApply(Tombstones::fromHash)
        : CompletableFuture.completedFuture(Tombstones.NONE);
    if (head.candidates().isEmpty()) {
      metrics.pageRead(true);
      return tombs.thenApply(t -> head.slice(t, List.of()));
    }
    byte[][] fields = new byte[head.candidates().size()][];
    for (int i = 0; i < fields.length; i++) {
      fields[i] = ascii(head.candidates().get(i).member());
    }
    return redis.hmget(keys.records(uid), fields).thenCombine(tombs, (values, t) -> {
      List<TimelineEntry> entries = new ArrayList<>(values.size());
      for (int i = 0; i < values.size(); i++) {
        KeyValue<byte[], byte[]> kv = values.get(i);
        if (!kv.hasValue()) {
          return null;
        }
        TimelinePosition p = head.candidates().get(i);
        entries.add(new TimelineEntry(p.member(), p.viewTimeMs(), kv.getValue()));
      }
      metrics.pageRead(true);
      return head.slice(t, entries);
    }).thenCompose(slice -> slice != null ? CompletableFuture.completedFuture(slice)
        : readScript(uid, after, limit, oldest));
  }

  /** The same read by {@code read_timeline.lua} alone, in one atomic call. */
  CompletionStage<RedisSlice> readScript(long uid, @Nullable TimelinePosition after, int limit, long[] oldest) {
    metrics.pageRead(false);
    byte[][] args = new byte[10][];
    args[0] = ascii(after == null ? "+inf" : Long.toString(after.viewTimeMs()));
    args[1] = ascii(after == null ? "" : after.member());
    args[2] = Scripts.num(limit);
    args[3] = Scripts.num(SCAN_BUDGET);
    for (int b = 1; b <= 6; b++) {
      args[3 + b] = ascii(oldest[b] == Long.MAX_VALUE ? "-" : Long.toString(oldest[b]));
    }
    return Scripts.<List<Object>>eval(redis, redis, RedisScript.READ_TIMELINE, ScriptOutputType.MULTI, userKeys(uid),
        args).thenApply(RedisTimeline::slice);
  }

  /**
   * What the plain commands found before the records are read: the page's entries (matching the
   * filter, at most the limit) and how the read ends. Immutable.
   */
  record PlainHead(int state, long size, boolean exhausted, @Nullable TimelinePosition lastExamined,
      List<TimelinePosition> candidates) {
    /**
     * Settles a page from {@code head} (the reply of {@code ZREVRANGEBYSCORE} asked for {@code
     * want} members), as the script would walk it; null when it cannot be settled from these entries.
     */
    static @Nullable PlainHead settle(List<ScoredValue<byte[]>> head, long size, List<Double> markerScores,
        @Nullable TimelinePosition after, int limit, int want, long[] oldest) {
      if (size == 0) {
        // No timeline (the range read after it may have seen one being written: let the script decide).
        return head.isEmpty() ? new PlainHead(RedisSlice.ABSENT, 0, true, null, List.of()) : null;
      }
      boolean complete = false;
      boolean warm = false;
      if (after != null) {
        complete = markerScores.size() == 2 && markerScores.get(0) != null;
        warm = markerScores.size() == 2 && markerScores.get(1) != null;
      }
      List<TimelinePosition> candidates = new ArrayList<>(limit);
      TimelinePosition last = null;
      boolean follows = false;
      for (ScoredValue<byte[]> sv : head) {
        String member = new String(sv.getValue(), StandardCharsets.US_ASCII);
        if (member.startsWith("~")) {
          complete |= member.equals(RedisKeys.TIMELINE_COMPLETE);
          warm |= member.equals(RedisKeys.TIMELINE_WARM);
          continue;
        }
        long score = (long) sv.getScore();
        if (after != null && score == after.viewTimeMs() && member.compareTo(after.member()) >= 0) {
          continue; // at the cursor's time, at or before the cursor's member: on an earlier page
        }
        if (candidates.size() >= limit) {
          follows = true;
          break;
        }
        last = new TimelinePosition(score, member);
        if (kept(member, score, oldest)) {
          candidates.add(last);
        }
      }
      if (!follows && head.size() >= want) {
        return null; // the entries ran out before the page was settled; more may follow
      }
      int state = complete ? RedisSlice.COMPLETE : warm ? RedisSlice.WARM : RedisSlice.UNMARKED;
      return new PlainHead(state, size, !follows, last, List.copyOf(candidates));
    }

    /** As the script's filter: a business 1..6 the request keeps, not older than its oldest kept time. */
    private static boolean kept(String member, long score, long[] oldest) {
      int business = TimelinePosition.business(member);
      return business >= 1 && business <= 6 && oldest[business] != Long.MAX_VALUE && score >= oldest[business];
    }

    boolean needsTombstones() {
      return state < RedisSlice.WARM || exhausted;
    }

    RedisSlice slice(Tombstones tombstones, List<TimelineEntry> entries) {
      return new RedisSlice(state, size, exhausted, lastExamined, needsTombstones() ? tombstones : Tombstones.NONE,
          entries);
    }
  }

  private static RedisSlice slice(List<Object> reply) {
    int state = ((Long) reply.get(0)).intValue();
    long size = (Long) reply.get(1);
    boolean exhausted = (Long) reply.get(2) == 1L;
    String lastMember = text(reply.get(3));
    TimelinePosition last = lastMember.isEmpty() ? null : new TimelinePosition((Long) reply.get(4), lastMember);
    Tombstones tombstones = Tombstones.fromFlat((List<?>) reply.get(5));
    List<TimelineEntry> entries = new ArrayList<>((reply.size() - 6) / 3);
    for (int i = 6; i + 2 < reply.size(); i += 3) {
      entries.add(new TimelineEntry(text(reply.get(i)), (Long) reply.get(i + 1), (byte[]) reply.get(i + 2)));
    }
    return new RedisSlice(state, size, exhausted, last, tombstones, entries);
  }

  /** Which of {@code members} the user's timeline holds (at any position). */
  CompletionStage<Set<String>> present(long uid, List<String> members) {
    byte[][] values = new byte[members.size()][];
    for (int i = 0; i < values.length; i++) {
      values[i] = ascii(members.get(i));
    }
    return redis.zmscore(keys.timeline(uid), values).thenApply(scores -> {
      Set<String> present = new HashSet<>();
      for (int i = 0; i < scores.size(); i++) {
        if (scores.get(i) != null) {
          present.add(members.get(i));
        }
      }
      return present;
    });
  }

  /**
   * Applies {@code entries} (the newest of the user's HBase row, newest first) with {@code
   * write_history.lua}'s last-write-wins and tombstone rules and marks the timeline warm ({@code
   * whole}: complete); returns how many were applied. Writes no recovery marks and nothing to the
   * write-back.
   */
  CompletionStage<Long> warm(long uid, List<TimelineEntry> entries, boolean whole) {
    byte[][] args = new byte[3 + 3 * entries.size()][];
    args[0] = Scripts.num(config.maxItemsPerUser());
    args[1] = Scripts.num(config.redisHistoryTtl().toMillis());
    args[2] = ascii(whole ? "1" : "0");
    int i = 3;
    for (TimelineEntry e : entries) {
      args[i++] = ascii(e.member());
      args[i++] = Scripts.num(e.viewTimeMs());
      args[i++] = e.value();
    }
    return Scripts.eval(redis, redis, RedisScript.WARM_HISTORY, ScriptOutputType.INTEGER, userKeys(uid), args);
  }

  /**
   * The stored records of {@code members} (null = none) and the tombstones that can cover them,
   * in one pipelined round trip.
   */
  CompletionStage<Lookup> lookup(long uid, List<String> members) {
    byte[][] fields = new byte[members.size()][];
    Set<String> tombFields = new LinkedHashSet<>();
    for (int i = 0; i < fields.length; i++) {
      fields[i] = ascii(members.get(i));
      tombFields.addAll(Tombstones.fieldsFor(members.get(i)));
    }
    List<String> tombList = List.copyOf(tombFields);
    byte[][] tombKeys = new byte[tombList.size()][];
    for (int i = 0; i < tombKeys.length; i++) {
      tombKeys[i] = ascii(tombList.get(i));
    }
    CompletionStage<List<KeyValue<byte[], byte[]>>> records = redis.hmget(keys.records(uid), fields);
    CompletionStage<List<KeyValue<byte[], byte[]>>> tombs = redis.hmget(keys.tombstones(uid), tombKeys);
    return records.thenCombine(tombs, (r, t) -> new Lookup(values(r), Tombstones.fromFields(tombList, values(t))));
  }

  /** Record values in request order (null = absent) and the tombstones covering them. */
  record Lookup(List<byte @Nullable []> values, Tombstones tombstones) {}

  private static List<byte @Nullable []> values(List<KeyValue<byte[], byte[]>> kvs) {
    List<byte @Nullable []> values = new ArrayList<>(kvs.size());
    for (KeyValue<byte[], byte[]> kv : kvs) {
      values.add(kv.hasValue() ? kv.getValue() : null);
    }
    return values;
  }

  private byte[][] userKeys(long uid) {
    return new byte[][] {keys.timeline(uid), keys.records(uid), keys.tombstones(uid)};
  }

  private static String text(Object bulk) {
    return new String((byte[]) bulk, StandardCharsets.US_ASCII);
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
