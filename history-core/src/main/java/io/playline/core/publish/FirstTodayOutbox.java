package io.playline.core.publish;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.playline.core.config.FirstTodayOutboxConfig;
import io.playline.core.store.RedisKeys;
import io.playline.core.store.RedisScript;
import io.playline.core.store.RetriableStoreException;
import io.playline.core.store.Scripts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The first-today outboxes in Redis ({@link RedisKeys#firstTodayOutbox}): the write path's {@code
 * first_today} script leaves each user's event of the day there; the publisher removes it once
 * Kafka acked it, and claims ({@code claim_first_today.lua}) what waited longer than {@code
 * first.today.outbox.age}. Both use Redis's clock, so node clocks do not matter.
 *
 * <p>Thread-safe: it sends on the process's shared, auto-flushing connection; only {@link #claim}
 * waits, bounded by the Redis timeout.
 */
public final class FirstTodayOutbox {
  /** What one claim found: the outbox's size, and the entries claimed (serialized events), oldest first. */
  public record Claimed(long depth, List<byte[]> entries) {}

  private final RedisClusterAsyncCommands<byte[], byte[]> redis;
  private final RedisKeys keys;
  private final int bitmapShards;
  private final FirstTodayOutboxConfig config;
  private final Duration timeout;

  /** Over {@code redis}, an auto-flushing connection (it also reloads the claim script after NOSCRIPT). */
  public FirstTodayOutbox(RedisClusterAsyncCommands<byte[], byte[]> redis, RedisKeys keys, int bitmapShards,
      FirstTodayOutboxConfig config, Duration timeout) {
    this.redis = redis;
    this.keys = keys;
    this.bitmapShards = bitmapShards;
    this.config = config;
    this.timeout = timeout;
  }

  public FirstTodayOutboxConfig config() {
    return config;
  }

  /** The outbox shard holding {@code uid}'s events. */
  public int shardOf(long uid) {
    return RedisKeys.firstTodayOutboxShard(uid, bitmapShards, config.shards());
  }

  /** Removes {@code entry} from outbox {@code shard} (once Kafka acked it); answers how many went (0 or 1). */
  public CompletionStage<Long> remove(int shard, byte[] entry) {
    return redis.zrem(keys.firstTodayOutbox(shard), entry);
  }

  /**
   * Claims up to {@code first.today.outbox.sweep.batch} entries of outbox {@code shard} older than
   * {@code first.today.outbox.age}: they are rescored to now, so no other sweeper takes them for
   * another age. Blocks up to the Redis timeout.
   *
   * @throws RetriableStoreException when Redis failed or did not answer in time
   */
  public Claimed claim(int shard) {
    byte[][] key = {keys.firstTodayOutbox(shard)};
    CompletionStage<List<Object>> reply = Scripts.eval(redis, redis, RedisScript.CLAIM_FIRST_TODAY,
        ScriptOutputType.MULTI, key, Scripts.num(config.age().toMillis()), Scripts.num(config.sweepBatch()));
    List<Object> values;
    try {
      values = reply.toCompletableFuture().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RetriableStoreException("Claiming first-today outbox " + shard + " interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new RetriableStoreException("Claiming first-today outbox " + shard + " failed", e);
    }
    List<byte[]> entries = new ArrayList<>(values.size() - 1);
    for (int i = 1; i < values.size(); i++) {
      entries.add((byte[]) values.get(i));
    }
    return new Claimed((Long) values.get(0), entries);
  }
}
