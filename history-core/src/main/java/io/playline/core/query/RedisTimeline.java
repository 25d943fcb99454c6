package io.playline.core.query;

import io.lettuce.core.KeyValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.playline.core.CoreConfig;
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
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * The Redis tier of the read path: timeline pages, record lookups and warm-ups, over the shared
 * auto-flushing connection (one command per call; scripts by EVALSHA with EVAL fallback).
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

  private final CoreConfig config;
  private final RedisKeys keys;
  private final RedisClusterAsyncCommands<byte[], byte[]> redis;

  RedisTimeline(CoreConfig config, RedisConnections connections) {
    this.config = config;
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
   */
  CompletionStage<RedisSlice> read(long uid, @Nullable TimelinePosition after, int limit, long[] oldest) {
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
