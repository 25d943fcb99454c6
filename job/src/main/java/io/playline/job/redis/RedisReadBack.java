package io.playline.job.redis;

import com.google.protobuf.InvalidProtocolBufferException;
import io.lettuce.core.KeyValue;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.core.store.RetriableStoreException;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryClear;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemDelete;
import io.playline.proto.v1.ItemKey;
import io.playline.time.Time;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the records Redis currently holds for many users' items in one pipelined round trip: one
 * {@code HMGET} per user on the user's records hash ({@link RedisKeys#records}), flushed once.
 *
 * <p>Confined to one thread: it queues on a pipelining connection its owner opened for that thread.
 */
public final class RedisReadBack {
  private static final Logger log = LoggerFactory.getLogger(RedisReadBack.class);

  private final StatefulConnection<byte[], byte[]> pipeline;
  private final RedisClusterAsyncCommands<byte[], byte[]> commands;
  private final RedisKeys keys;
  private final Duration timeout;
  private final Time time;

  /**
   * Queues on {@code pipeline} (auto flush off, owned by the caller), waiting up to {@code timeout}
   * by {@code time} per round trip.
   */
  public RedisReadBack(StatefulConnection<byte[], byte[]> pipeline, RedisKeys keys, Duration timeout, Time time) {
    this.time = time;
    this.pipeline = pipeline;
    this.commands = RedisConnections.commands(pipeline);
    this.keys = keys;
    this.timeout = timeout;
  }

  /**
   * For each user of {@code items}, the records Redis holds among the asked items; an item missing
   * from the answer has no record in Redis (never written, trimmed, expired, deleted or lost). A
   * user whose records key holds something else than a hash (an error reply) is logged and treated
   * as having no records, so one bad key cannot stall the job. Every item's business must be known.
   *
   * @throws RetriableStoreException when Redis is unreachable or does not answer in time
   */
  public Map<Long, Map<ItemKey, HistoryRecord>> read(Map<Long, List<ItemKey>> items) {
    Map<Long, CompletionStage<List<KeyValue<byte[], byte[]>>>> replies = new LinkedHashMap<>();
    for (Map.Entry<Long, List<ItemKey>> e : items.entrySet()) {
      List<ItemKey> asked = e.getValue();
      if (asked.isEmpty()) {
        continue;
      }
      byte[][] fields = new byte[asked.size()][];
      for (int i = 0; i < fields.length; i++) {
        fields[i] = RedisKeys.member(asked.get(i));
      }
      replies.put(e.getKey(), commands.hmget(keys.records(e.getKey()), fields));
    }
    if (replies.isEmpty()) {
      return Map.of();
    }
    pipeline.flushCommands();
    RoundTripDeadline deadline = RoundTripDeadline.after(time, timeout);
    Map<Long, Map<ItemKey, HistoryRecord>> found = new HashMap<>();
    for (Map.Entry<Long, CompletionStage<List<KeyValue<byte[], byte[]>>>> e : replies.entrySet()) {
      long uid = e.getKey();
      List<KeyValue<byte[], byte[]>> values;
      try {
        values = RedisFailures.await(e.getValue(), deadline, "HMGET of " + replies.size() + " users' records");
      } catch (RedisFailures.ErrorReply permanent) {
        log.warn("Reading uid {}'s records from Redis failed; using the snapshot instead", uid, permanent);
        continue;
      }
      found.put(uid, parse(uid, items.get(uid), values));
    }
    return found;
  }

  private static Map<ItemKey, HistoryRecord> parse(long uid, List<ItemKey> asked, List<KeyValue<byte[], byte[]>> values) {
    Map<ItemKey, HistoryRecord> records = new HashMap<>();
    for (int i = 0; i < values.size() && i < asked.size(); i++) {
      KeyValue<byte[], byte[]> kv = values.get(i);
      if (!kv.hasValue()) {
        continue;
      }
      try {
        HistoryRecord r = HistoryRecord.parseFrom(kv.getValue());
        records.put(asked.get(i), r.getUid() == uid ? r : r.toBuilder().setUid(uid).build());
      } catch (InvalidProtocolBufferException e) {
        log.warn("uid {} item {}: the record in Redis is not a HistoryRecord ({} bytes); ignoring it", uid,
            asked.get(i).getOid(), kv.getValue().length);
      }
    }
    return records;
  }

  /**
   * What Redis says about the asked items: their records, and for each item the newest delete or
   * clear that covers it ({@code *} clear-all, business clear, item delete), from the user's
   * tombstones hash. A snapshot not newer than its tombstone must not be persisted: that is what
   * keeps a business clear sticking in HBase, where it leaves no marker for items it did not find.
   * And per user its eviction floor ({@code ~e} of delete_history.lua: the newest delete whose
   * item tombstone was evicted), when it has one: an item with no record in Redis may have been
   * deleted at up to that time, its own tombstone gone.
   */
  public record Current(Map<Long, Map<ItemKey, HistoryRecord>> records, Map<Long, Map<ItemKey, Long>> tombstones,
      Map<Long, Long> floors) {}

  /** As {@link #read}, plus the tombstones covering each asked item, in the same round trip. */
  public Current readWithTombstones(Map<Long, List<ItemKey>> items) {
    Map<Long, CompletionStage<List<KeyValue<byte[], byte[]>>>> tombReplies = new LinkedHashMap<>();
    for (Map.Entry<Long, List<ItemKey>> e : items.entrySet()) {
      if (!e.getValue().isEmpty()) {
        tombReplies.put(e.getKey(), commands.hmget(keys.tombstones(e.getKey()), tombstoneFields(e.getValue())));
      }
    }
    Map<Long, Map<ItemKey, HistoryRecord>> records = read(items); // flushes the queued HMGETs too
    if (tombReplies.isEmpty()) {
      return new Current(records, Map.of(), Map.of());
    }
    RoundTripDeadline deadline = RoundTripDeadline.after(time, timeout);
    Map<Long, Map<ItemKey, Long>> tombstones = new HashMap<>();
    Map<Long, Long> floors = new HashMap<>();
    for (Map.Entry<Long, CompletionStage<List<KeyValue<byte[], byte[]>>>> e : tombReplies.entrySet()) {
      try {
        List<KeyValue<byte[], byte[]>> values =
            RedisFailures.await(e.getValue(), deadline, "HMGET of " + tombReplies.size() + " users' tombstones");
        tombstones.put(e.getKey(), coverage(items.get(e.getKey()), values));
        long floor = time(values, 1);
        if (floor >= 0) {
          floors.put(e.getKey(), floor);
        }
      } catch (RedisFailures.ErrorReply permanent) {
        log.warn("Reading uid {}'s tombstones from Redis failed; relying on the batch's own deletes", e.getKey());
      }
    }
    return new Current(records, tombstones, floors);
  }

  /**
   * Fields asked of a tombstones hash: {@code *}, the floor {@code ~e}, then one pair per item:
   * {@code b<business>}, {@code business:oid}.
   */
  private static byte[][] tombstoneFields(List<ItemKey> asked) {
    byte[][] fields = new byte[2 + 2 * asked.size()][];
    fields[0] = RedisKeys.bytes("*");
    fields[1] = RedisKeys.bytes("~e");
    for (int i = 0; i < asked.size(); i++) {
      fields[2 + 2 * i] = RedisKeys.bytes("b" + asked.get(i).getBusinessValue());
      fields[3 + 2 * i] = RedisKeys.member(asked.get(i));
    }
    return fields;
  }

  private static Map<ItemKey, Long> coverage(List<ItemKey> asked, List<KeyValue<byte[], byte[]>> values) {
    long clearAll = time(values, 0);
    Map<ItemKey, Long> covered = new HashMap<>();
    for (int i = 0; i < asked.size(); i++) {
      long t = Math.max(clearAll, Math.max(time(values, 2 + 2 * i), time(values, 3 + 2 * i)));
      if (t >= 0) {
        covered.put(asked.get(i), t);
      }
    }
    return covered;
  }

  private static long time(List<KeyValue<byte[], byte[]>> values, int index) {
    if (index >= values.size() || !values.get(index).hasValue()) {
      return -1;
    }
    try {
      return Long.parseLong(new String(values.get(index).getValue(), StandardCharsets.US_ASCII).trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Every tombstone Redis holds for each of {@code uids}, as the deletes and clears of one change
   * per user with any (a user with none is left out): what a delete's or clear's recovery mark
   * stands for. A field that is not a tombstone is logged and skipped.
   *
   * @throws RetriableStoreException when Redis is unreachable or does not answer in time
   */
  public List<HistoryChange> tombstones(Collection<Long> uids) {
    Map<Long, CompletionStage<Map<byte[], byte[]>>> replies = new LinkedHashMap<>();
    for (long uid : uids) {
      replies.put(uid, commands.hgetall(keys.tombstones(uid)));
    }
    if (replies.isEmpty()) {
      return List.of();
    }
    pipeline.flushCommands();
    RoundTripDeadline deadline = RoundTripDeadline.after(time, timeout);
    List<HistoryChange> changes = new ArrayList<>();
    for (Map.Entry<Long, CompletionStage<Map<byte[], byte[]>>> e : replies.entrySet()) {
      Map<byte[], byte[]> fields;
      try {
        fields = RedisFailures.await(e.getValue(), deadline, "HGETALL of " + replies.size() + " users' tombstones");
      } catch (RedisFailures.ErrorReply permanent) {
        log.warn("Reading uid {}'s tombstones from Redis failed; skipping them", e.getKey(), permanent);
        continue;
      }
      HistoryChange change = tombstoneChange(e.getKey(), fields);
      if (change.getDeletesCount() + change.getClearsCount() > 0) {
        changes.add(change);
      }
    }
    return changes;
  }

  /** One user's tombstones hash ({@link RedisKeys}: {@code *}, {@code b<business>}, {@code business:oid}) as a change. */
  private static HistoryChange tombstoneChange(long uid, Map<byte[], byte[]> fields) {
    HistoryChange.Builder change = HistoryChange.newBuilder().setUid(uid);
    fields.forEach((f, v) -> {
      String field = new String(f, StandardCharsets.US_ASCII);
      if (field.startsWith("~")) {
        return; // '~e', the eviction floor of delete_history.lua: not a tombstone of its own
      }
      try {
        long time = Long.parseLong(new String(v, StandardCharsets.US_ASCII).trim());
        if (field.equals("*")) {
          change.addClears(HistoryClear.newBuilder().setClearTimeMs(time));
        } else if (field.startsWith("b")) {
          change.addClears(HistoryClear.newBuilder().setClearTimeMs(time)
              .addBusinessesValue(Integer.parseInt(field.substring(1))));
        } else {
          change.addDeletes(ItemDelete.newBuilder().setItem(RedisKeys.item(f)).setDeleteTimeMs(time));
        }
      } catch (IllegalArgumentException | NullPointerException bad) {
        // NumberFormatException included; Business.forNumber answers null for an unknown number.
        log.warn("uid {}: tombstone field {} is not a delete or clear time; skipping it", uid, field);
      }
    });
    return change.build();
  }

  /** Collects items per user in first-seen order; a convenience for callers building {@link #read}'s argument. */
  public static void add(Map<Long, List<ItemKey>> items, long uid, ItemKey item) {
    items.computeIfAbsent(uid, u -> new ArrayList<>()).add(item);
  }
}
