package io.playline.core.query;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.playline.core.aggregate.WriteBackFullException;
import io.playline.core.config.CoreConfig;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.core.store.RedisScript;
import io.playline.core.store.RetriableStoreException;
import io.playline.core.store.Scripts;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ItemKey;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

/**
 * The user controls: delete, clear and pause. A delete or clear takes three steps:
 *
 * <ol>
 *   <li>a recovery mark of its own ({@code uid:~<nonce>} in the user's recovery shard, {@code
 *       mark_recovery.lua}), so from here on the job's sweep persists the user's tombstones to
 *       HBase even if this process dies;
 *   <li>one atomic script per user in Redis ({@code delete_history.lua}, {@code clear_history.lua})
 *       that writes the tombstone at server time and removes what it covers, so every later read and
 *       write sees it at once;
 *   <li>the same operation at the same time, with its mark, to the {@link TombstoneSink} (the
 *       write-back), which carries it through Kafka to the job's HBase delete; the job then removes
 *       the mark.
 * </ol>
 *
 * A failure after the first step fails the call as retriable and says the control may be applied
 * already: a retry is safe (the Redis part is idempotent), and without one the sweep still
 * persists whatever Redis applied.
 *
 * <p>Thread-safe; never blocks; stages complete on Lettuce's I/O threads.
 */
final class HistoryControl {
  private static final byte[] PAUSED = "1".getBytes(StandardCharsets.US_ASCII);

  private final CoreConfig config;
  private final RedisKeys keys;
  private final RedisClusterAsyncCommands<byte[], byte[]> redis;
  private final TombstoneSink sink;
  private final QueryMetrics metrics;
  private final LongSupplier clock;

  HistoryControl(CoreConfig config, RedisConnections connections, TombstoneSink sink, QueryMetrics metrics,
      LongSupplier clock) {
    this.config = config;
    this.keys = new RedisKeys(config.redisKeyPrefix());
    this.redis = connections.shared();
    this.sink = sink;
    this.metrics = metrics;
    this.clock = clock;
  }

  /**
   * Deletes {@code items} (validated, distinct, non-empty) at server time. Refuses, applying nothing,
   * a delete naming more items than {@code history.tombstones.max.per.user} ({@link
   * InvalidRequestException}), and one that would push the user past it while too few of its
   * tombstones are older than {@link CoreConfig#tombstoneEvictionAge()} ({@link
   * RateLimitedException}, with the time until enough are).
   */
  CompletionStage<Void> delete(long uid, List<ItemKey> items) {
    int cap = config.maxTombstonesPerUser();
    if (items.size() > cap) {
      throw new InvalidRequestException("items: " + items.size() + " distinct entries (expected: at most "
          + cap + ", history.tombstones.max.per.user)");
    }
    long now = clock.getAsLong();
    byte[][] args = new byte[5 + items.size()][];
    args[0] = Scripts.num(now);
    args[1] = Scripts.num(config.tombstoneTtl().toMillis());
    args[2] = Scripts.num(config.maxItemsPerUser());
    args[3] = Scripts.num(cap);
    args[4] = Scripts.num(config.tombstoneEvictionAge().toMillis());
    for (int i = 0; i < items.size(); i++) {
      args[5 + i] = RedisKeys.member(items.get(i));
    }
    return control(uid, "delete", RedisScript.DELETE_HISTORY, args, (mark, evicted) -> {
      if (evicted < 0) {
        // Refused by the script before it applied anything; the mark alone is harmless to the sweep.
        metrics.deletesRefused();
        throw new RateLimitedException("delete refused: it would keep more than " + cap + " recent item "
            + "deletes for this user; retry after " + -evicted + " ms", -evicted);
      }
      sink.delete(uid, items, now, mark);
      metrics.deleted(items.size());
      metrics.tombstonesEvicted(evicted);
    });
  }

  /** Clears {@code businesses} (validated, distinct; empty = everything) at server time. */
  CompletionStage<Void> clear(long uid, List<Business> businesses) {
    long now = clock.getAsLong();
    byte[][] args = new byte[4 + businesses.size()][];
    args[0] = Scripts.num(now);
    args[1] = Scripts.num(config.tombstoneTtl().toMillis());
    args[2] = Scripts.num(config.maxItemsPerUser());
    args[3] = Scripts.num(config.redisHistoryTtl().toMillis());
    for (int i = 0; i < businesses.size(); i++) {
      args[4 + i] = Scripts.num(businesses.get(i).getNumber());
    }
    return control(uid, "clear", RedisScript.CLEAR_HISTORY, args, (mark, removed) -> {
      sink.clear(uid, businesses, now, mark);
      metrics.cleared(businesses.isEmpty());
    });
  }

  /**
   * Marks, applies {@code script} to the user's keys, then hands over the mark and the script's
   * integer reply to the sink (class comment).
   */
  private CompletionStage<Void> control(long uid, String what, RedisScript script, byte[][] args,
      BiConsumer<byte[], Long> handOver) {
    byte[] mark = RedisKeys.controlMark(uid, ThreadLocalRandom.current().nextLong());
    int shard = RedisKeys.recoveryShard(uid, config.recoveryShards());
    CompletableFuture<List<Object>> marked = Scripts.eval(redis, redis, RedisScript.MARK_RECOVERY,
        ScriptOutputType.MULTI, new byte[][] {keys.recovery(shard), keys.recoveryClock(shard)}, Scripts.num(1), mark);
    return marked.thenCompose(stamp -> Scripts.<Long>eval(redis, redis, script, ScriptOutputType.INTEGER,
            userKeys(uid), args)
        .handle((reply, error) -> {
          if (error != null) {
            Throwable mapped = StoreFailures.map(what, error);
            if (mapped instanceof RetriableStoreException) {
              throw new RetriableStoreException(mapped.getMessage() + "; the " + what + " of uid " + uid + " may "
                  + "have been applied in Redis: retrying it is safe, and the job persists whatever Redis applied",
                  mapped.getCause() == null ? mapped : mapped.getCause());
            }
            throw mapped instanceof RuntimeException r ? r : new CompletionException(mapped);
          }
          handOver(what, uid, () -> handOver.accept(mark, reply));
          return null;
        }));
  }

  /** Sets or removes the paused flag (no TTL: pausing lasts until resumed); returns the new state. */
  CompletionStage<Boolean> setPaused(long uid, boolean paused) {
    CompletionStage<?> done = paused ? redis.set(keys.paused(uid), PAUSED) : redis.del(keys.paused(uid));
    return done.thenApply(ignored -> paused);
  }

  CompletionStage<Boolean> paused(long uid) {
    return redis.exists(keys.paused(uid)).thenApply(n -> n > 0);
  }

  /**
   * Runs a hand-over to the sink, turning "full" and "closed" into retriable failures that say the
   * control is applied and will reach HBase through its recovery mark.
   */
  private static void handOver(String what, long uid, Runnable handOver) {
    String applied = "; the " + what + " of uid " + uid + " is applied in Redis and the job's recovery sweep "
        + "persists it, so a retry is safe but not needed";
    try {
      handOver.run();
    } catch (WriteBackFullException e) {
      throw new RetriableStoreException("write-back holds too many pending deletes and clears" + applied, e);
    } catch (IllegalStateException e) {
      throw new RetriableStoreException("write-back is closed (node shutting down)" + applied, e);
    }
  }

  private byte[][] userKeys(long uid) {
    return new byte[][] {keys.timeline(uid), keys.records(uid), keys.tombstones(uid), keys.tombstoneOrder(uid)};
  }
}
