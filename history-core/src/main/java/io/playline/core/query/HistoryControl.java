package io.playline.core.query;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.playline.core.CoreConfig;
import io.playline.core.aggregate.WriteBackFullException;
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
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * The user controls: delete, clear and pause. A delete or clear is one atomic script per user in
 * Redis ({@code delete_history.lua}, {@code clear_history.lua}) that writes the tombstone at
 * server time and removes what it covers, so every later read and write sees it at once; then the
 * same operation at the same time goes to the {@link TombstoneSink} (the write-back), which carries
 * it through Kafka in the user's order to the job's HBase delete. If the sink refuses it, the call
 * fails as retriable: the Redis part is idempotent, so the client's retry completes it.
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

  /** Deletes {@code items} (validated, distinct, non-empty) at server time. */
  CompletionStage<Void> delete(long uid, List<ItemKey> items) {
    long now = clock.getAsLong();
    byte[][] args = new byte[3 + items.size()][];
    args[0] = Scripts.num(now);
    args[1] = Scripts.num(config.tombstoneTtl().toMillis());
    args[2] = Scripts.num(config.maxItemsPerUser());
    for (int i = 0; i < items.size(); i++) {
      args[3 + i] = RedisKeys.member(items.get(i));
    }
    CompletableFuture<Long> applied =
        Scripts.eval(redis, redis, RedisScript.DELETE_HISTORY, ScriptOutputType.INTEGER, userKeys(uid), args);
    return applied.thenAccept(removed -> {
      handOver(() -> items.forEach(item -> sink.delete(uid, item, now)));
      metrics.deleted(items.size());
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
    CompletableFuture<Long> applied =
        Scripts.eval(redis, redis, RedisScript.CLEAR_HISTORY, ScriptOutputType.INTEGER, userKeys(uid), args);
    return applied.thenAccept(removed -> {
      handOver(() -> sink.clear(uid, businesses, now));
      metrics.cleared(businesses.isEmpty());
    });
  }

  /** Sets or removes the paused flag (no TTL: pausing lasts until resumed); returns the new state. */
  CompletionStage<Boolean> setPaused(long uid, boolean paused) {
    CompletionStage<?> done = paused ? redis.set(keys.paused(uid), PAUSED) : redis.del(keys.paused(uid));
    return done.thenApply(ignored -> paused);
  }

  CompletionStage<Boolean> paused(long uid) {
    return redis.exists(keys.paused(uid)).thenApply(n -> n > 0);
  }

  /** Runs a hand-over to the sink, turning "full" and "closed" into retriable failures. */
  private static void handOver(Runnable handOver) {
    try {
      handOver.run();
    } catch (WriteBackFullException e) {
      throw new RetriableStoreException("write-back holds too many pending deletes and clears", e);
    } catch (IllegalStateException e) {
      throw new RetriableStoreException("write-back is closed (node shutting down)", e);
    }
  }

  private byte[][] userKeys(long uid) {
    return new byte[][] {keys.timeline(uid), keys.records(uid), keys.tombstones(uid)};
  }
}
