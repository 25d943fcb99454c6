package io.playline.core.store;

import io.playline.proto.v1.Business;
import io.playline.proto.v1.ItemKey;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Where history lives in Redis: this class is the key layout's one definition. One user's keys share the hash tag {@code {uid}}, so
 * they sit in one Redis Cluster slot and a Lua script may touch them together:
 *
 * <ul>
 *   <li>{@code <p>h:{uid}:z} sorted set: member {@code business:oid}, score view time (ms); plus at
 *       most one warm marker scored {@code +inf} (never trimmed), {@link #TIMELINE_WARM} or {@link
 *       #TIMELINE_COMPLETE}, set by the readers (see {@code io.playline.core.query.RedisTimeline})
 *   <li>{@code <p>h:{uid}:r} hash: member to serialized {@code HistoryRecord}
 *   <li>{@code <p>h:{uid}:t} hash of tombstones: {@code *} clear-all time, {@code b<business>} clear
 *       time of one business, {@code business:oid} delete time of one item
 *   <li>{@code <p>h:{uid}:o} sorted set indexing the item tombstones: member {@code business:oid},
 *       score its delete time; lets {@code delete_history.lua} and {@code clear_history.lua} find
 *       expired and oldest tombstones without reading the hash (at most {@code
 *       history.tombstones.max.per.user} items)
 *   <li>{@code <p>h:{uid}:p} string, present while the user paused recording
 * </ul>
 *
 * Keys shared across users are sharded so none is hot: first-today bitmaps {@code
 * <p>ft:{ft<o>}:<yyyymmdd>:<s>[:<chunk>]} (and sets {@code ...:<s>:u} for uids past {@code
 * first.today.bitmap.max.uid}; see {@link #firstTodaySpot}) with {@code s = uid mod
 * first.today.shards} and {@code o = s mod first.today.outbox.shards}, each next to its first-today outbox
 * {@code <p>ft:{ft<o>}:outbox} (sorted set of serialized {@code FirstTodayEvent}s scored by Redis
 * time; the shared hash tag lets one script set the bit and append the event in Redis Cluster),
 * write-back recovery logs {@code <p>wb:{<shard>}:log} (streams: one entry per write call, listing
 * the items it applied; see {@link #recoveryLog}) and recovery marks
 * {@code <p>wb:{<shard>}} (sorted set by mark stamp: {@code uid:~<nonce>} for a delete or clear,
 * and {@code uid:business:oid} for a write-through of an item by releases before the log) with the shard's last stamp in {@code
 * <p>wb:{<shard>}:c} (microseconds by Redis's clock, strictly increasing, see {@code
 * mark_recovery.lua}). The job
 * instances split the recovery sweep with a lease per shard, {@code <p>wb:{<shard>}:lease} (string:
 * the owner's id, with a TTL), and advertise themselves in {@code <p>wb:instances} (sorted set of
 * owner ids scored by expiry time, ms by Redis's clock).
 * Sessions are {@code <p>s:<session id>}. Immutable.
 */
public final class RedisKeys {
  /** Timeline marker: warmed from HBase; every item newer than the oldest timeline entry is in it. */
  public static final String TIMELINE_WARM = "~w";
  /** Timeline marker: as {@link #TIMELINE_WARM}, and HBase held nothing more unless the timeline is full. */
  public static final String TIMELINE_COMPLETE = "~c";

  private final String prefix;
  private final byte[] userHead; // <p>h:{

  public RedisKeys(String prefix) {
    this.prefix = prefix;
    this.userHead = bytes(prefix + "h:{");
  }

  public String prefix() {
    return prefix;
  }

  public byte[] timeline(long uid) {
    return user(uid, (byte) 'z');
  }

  public byte[] records(long uid) {
    return user(uid, (byte) 'r');
  }

  public byte[] tombstones(long uid) {
    return user(uid, (byte) 't');
  }

  /** The order index of the item tombstones (member to delete time), next to {@link #tombstones}. */
  public byte[] tombstoneOrder(long uid) {
    return user(uid, (byte) 'o');
  }

  public byte[] paused(long uid) {
    return user(uid, (byte) 'p');
  }

  /** {@code <p>h:{uid}:<suffix>}, copied into one array (the write path builds four per user). */
  private byte[] user(long uid, byte suffix) {
    byte[] id = Long.toString(uid).getBytes(StandardCharsets.US_ASCII);
    byte[] key = Arrays.copyOf(userHead, userHead.length + id.length + 3);
    System.arraycopy(id, 0, key, userHead.length, id.length);
    int end = userHead.length + id.length;
    key[end] = '}';
    key[end + 1] = ':';
    key[end + 2] = suffix;
    return key;
  }

  /** Bits per first-today bitmap chunk key (8 KiB): the most one lone uid can make Redis allocate. */
  public static final int FIRST_TODAY_CHUNK_BITS = 1 << 16;

  /**
   * Where one user's first-today check lives, in the slot of its outbox {@link #firstTodayOutbox}
   * ({@link #firstTodayOutboxShard}): a bit of a bitmap chunk, or a member of a set.
   *
   * @param key the bitmap chunk or the set
   * @param argument the bit offset within the chunk, or the set member (the decimal uid)
   * @param member true for a set member
   */
  public record FirstTodaySpot(byte[] key, byte[] argument, boolean member) {}

  /**
   * The first-today spot of {@code uid} on {@code day} (yyyymmdd). Shard {@code s = uid mod
   * shards}; within it, {@code q = uid / shards}. A uid up to {@code bitmapMaxUid} is bit {@code q
   * mod 2^16} of chunk {@code q / 2^16}: {@code <p>ft:{ft<o>}:<day>:<s>} for chunk 0 (the key of the
   * unchunked bitmap before chunks existed, so counts carry over), {@code ...:<s>:<chunk>} after.
   * A larger uid is a member of {@code ...:<s>:u}. Never a bit offset Redis refuses, and never more
   * than one chunk's memory for a lone uid.
   */
  public FirstTodaySpot firstTodaySpot(String day, long uid, int shards, int outboxShards, long bitmapMaxUid) {
    long shard = Math.floorMod(uid, (long) shards);
    String base = prefix + "ft:{ft" + (shard % outboxShards) + "}:" + day + ":" + shard;
    if (uid > bitmapMaxUid) {
      return new FirstTodaySpot(bytes(base + ":u"), bytes(Long.toString(uid)), true);
    }
    long q = uid / shards;
    long chunk = q / FIRST_TODAY_CHUNK_BITS;
    String key = chunk == 0 ? base : base + ":" + chunk;
    return new FirstTodaySpot(bytes(key), bytes(Long.toString(q % FIRST_TODAY_CHUNK_BITS)), false);
  }

  /** The first-today outbox of {@code outboxShard}: serialized events scored by Redis time (ms). */
  public byte[] firstTodayOutbox(int outboxShard) {
    return bytes(prefix + "ft:{ft" + outboxShard + "}:outbox");
  }

  /** The outbox shard whose outbox holds {@code uid}'s first-today events. */
  public static int firstTodayOutboxShard(long uid, int shards, int outboxShards) {
    return (int) (Math.floorMod(uid, (long) shards) % outboxShards);
  }

  /** The recovery-mark key of {@code shard}. */
  public byte[] recovery(int shard) {
    return bytes(prefix + "wb:{" + shard + "}");
  }

  /**
   * The recovery log of shard {@code shard}: a stream, one entry per write call listing the items
   * it applied ({@code m}: {@code uid:business:oid} separated by spaces). Same hash tag as the
   * shard's marks and lease, so one sweep's keys share a slot.
   */
  public byte[] recoveryLog(int shard) {
    return bytes(prefix + "wb:{" + shard + "}:log");
  }

  /** The last mark stamp issued by recovery shard {@code shard} (microseconds, strictly increasing). */
  public byte[] recoveryClock(int shard) {
    return bytes(prefix + "wb:{" + shard + "}:c");
  }

  /** The sweep lease of recovery shard {@code shard}: a string holding its owner's id, with a TTL. */
  public byte[] recoveryLease(int shard) {
    return bytes(prefix + "wb:{" + shard + "}:lease");
  }

  /** The live job instances sharing the recovery sweep: owner ids scored by expiry time (ms). */
  public byte[] recoveryInstances() {
    return bytes(prefix + "wb:instances");
  }

  public static int recoveryShard(long uid, int shards) {
    return (int) Math.floorMod(uid, (long) shards);
  }

  public byte[] session(String sessionId) {
    return bytes(prefix + "s:" + sessionId);
  }

  /** The timeline member (and record field) of an item: {@code business:oid}. */
  public static byte[] member(Business business, long oid) {
    return bytes(business.getNumber() + ":" + oid);
  }

  public static byte[] member(ItemKey item) {
    return member(item.getBusiness(), item.getOid());
  }

  /** Parses a timeline member back into an item. */
  public static ItemKey item(byte[] member) {
    String s = new String(member, StandardCharsets.US_ASCII);
    int colon = s.indexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("not a history member: " + s);
    }
    return ItemKey.newBuilder()
        .setBusiness(Business.forNumber(Integer.parseInt(s.substring(0, colon))))
        .setOid(Long.parseLong(s.substring(colon + 1)))
        .build();
  }

  /** The recovery-mark member of one user's item: {@code uid:business:oid}. */
  public static byte[] recoveryMember(long uid, byte[] member) {
    return bytes(uid + ":" + new String(member, StandardCharsets.US_ASCII));
  }

  /**
   * Appends {@link #recoveryMember}'s form of one item, {@code uid:business:oid}, to {@code to}: how a
   * recovery-log entry lists what a write applied (write_history.lua builds the same on a single
   * server; the job parses both alike).
   */
  public static StringBuilder appendRecoveryMember(StringBuilder to, long uid, int business, long oid) {
    return to.append(uid).append(':').append(business).append(':').append(oid);
  }

  /**
   * The recovery mark of one delete or clear of {@code uid}: {@code uid:~<nonce>}, unique per call,
   * so only that call's own persistence removes it. A sweep finding it persists all of the user's
   * tombstones.
   */
  public static byte[] controlMark(long uid, long nonce) {
    return bytes(uid + ":~" + Long.toHexString(nonce));
  }

  public static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
