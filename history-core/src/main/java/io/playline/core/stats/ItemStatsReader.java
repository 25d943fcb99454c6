package io.playline.core.stats;

import com.google.protobuf.InvalidProtocolBufferException;
import io.lettuce.core.KeyValue;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.playline.core.store.HBaseClient;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ItemStats;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.AdvancedScanResultConsumer;
import org.apache.hadoop.hbase.client.AsyncTable;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.jspecify.annotations.Nullable;

/**
 * Answers item counters: one {@code MGET} of the cache for all items (one per hash slot in Cluster
 * mode), falling back to HBase for all of them when Redis fails, then one HBase multi-get of
 * the misses, whose answers are cached for {@code cacheTtl} — zeros too, so an item nobody played
 * does not reach HBase on every call. Cache entries hold an {@link ItemStats} without its item
 * (empty bytes for zeros). Items must be distinct and valid (the caller validates). The first HBase
 * read opens the {@link HBaseClient} if nothing has yet.
 *
 * <p>Thread-safe; never blocks: stages complete on Lettuce's or HBase's threads.
 */
public final class ItemStatsReader {
  /** Stands for every row while the table does not exist. */
  private static final Result EMPTY = Result.create(new org.apache.hadoop.hbase.Cell[0]);

  private final RedisClusterAsyncCommands<byte[], byte[]> redis;
  private final HBaseClient.Derived<AsyncTable<AdvancedScanResultConsumer>> table;
  private final String keyPrefix;
  private final Duration cacheTtl;
  private final Counter cacheHits;
  private final Counter hbaseReads;
  private final Counter cacheFailures;

  /**
   * @param keyPrefix the Redis key prefix ({@code redis.key.prefix})
   * @param cacheTtl how long an answer is cached ({@code item.stats.cache.ttl}); zero: never cached
   * @param hbaseTimeout bound of one HBase read, retries included ({@code query.hbase.timeout})
   */
  public ItemStatsReader(RedisClusterAsyncCommands<byte[], byte[]> redis, HBaseClient hbase, ItemStatsLayout layout,
      String keyPrefix, Duration cacheTtl, Duration hbaseTimeout, MeterRegistry registry) {
    this.redis = redis;
    long timeoutMs = hbaseTimeout.toMillis();
    this.table = hbase.derive(connection -> connection.getTableBuilder(layout.stats())
        .setOperationTimeout(timeoutMs, TimeUnit.MILLISECONDS)
        .setReadRpcTimeout(timeoutMs, TimeUnit.MILLISECONDS)
        .build());
    this.keyPrefix = keyPrefix;
    this.cacheTtl = cacheTtl;
    this.cacheHits = Counter.builder("playline.item.stats.lookups").tag("source", "cache")
        .description("Items answered by GetItemStats, by where the answer came from").register(registry);
    this.hbaseReads = Counter.builder("playline.item.stats.lookups").tag("source", "hbase")
        .description("Items answered by GetItemStats, by where the answer came from").register(registry);
    this.cacheFailures = Counter.builder("playline.item.stats.cache.failures")
        .description("GetItemStats cache reads and writes that failed (answered from HBase instead)").register(registry);
  }

  /** The counters of {@code items}, in their order. */
  public CompletionStage<List<ItemStats>> read(List<ItemKey> items) {
    if (items.isEmpty()) {
      return CompletableFuture.completedFuture(List.of());
    }
    if (cacheTtl.isZero()) {
      return fromHBase(items, new ItemStats[items.size()], allIndexes(items.size()));
    }
    byte[][] keys = new byte[items.size()][];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = key(items.get(i));
    }
    return redis.mget(keys).exceptionally(error -> {
      // The cache is an optimisation: without Redis every item is read from HBase.
      cacheFailures.increment();
      return null;
    }).thenCompose(values -> {
      if (values == null) {
        return fromHBase(items, new ItemStats[items.size()], allIndexes(items.size()));
      }
      ItemStats[] answers = new ItemStats[items.size()];
      List<Integer> misses = new ArrayList<>();
      for (int i = 0; i < answers.length; i++) {
        KeyValue<byte[], byte[]> kv = values.get(i);
        ItemStats cached = kv.hasValue() ? parse(items.get(i), kv.getValue()) : null;
        if (cached == null) {
          misses.add(i);
        } else {
          answers[i] = cached;
        }
      }
      cacheHits.increment(answers.length - misses.size());
      return misses.isEmpty() ? CompletableFuture.completedFuture(List.of(answers)) : fromHBase(items, answers, misses);
    });
  }

  private CompletionStage<List<ItemStats>> fromHBase(List<ItemKey> items, ItemStats[] answers, List<Integer> misses) {
    List<Get> gets = new ArrayList<>(misses.size());
    for (int i : misses) {
      gets.add(new Get(ItemStatsLayout.row(items.get(i))).addFamily(ItemStatsLayout.STATS_FAMILY));
    }
    return table.get().thenCompose(t -> t.getAll(gets)).exceptionally(error -> {
      if (tableMissing(error)) {
        // No job has created the table yet: nothing was counted. Not cached, so counts show up at once.
        List<Result> none = new ArrayList<>(misses.size());
        for (int i = 0; i < misses.size(); i++) {
          none.add(EMPTY);
        }
        return none;
      }
      throw error instanceof RuntimeException r ? r : new java.util.concurrent.CompletionException(error);
    }).thenApply(results -> {
      hbaseReads.increment(misses.size());
      for (int j = 0; j < misses.size(); j++) {
        int i = misses.get(j);
        Result r = results.get(j);
        answers[i] = ItemStatsLayout.sum(items.get(i), r);
        if (!cacheTtl.isZero() && r != EMPTY) {
          // Not waited for: a failed cache write only means the next call reads HBase again.
          redis.set(key(items.get(i)), answers[i].toBuilder().clearItem().build().toByteArray(),
              SetArgs.Builder.px(cacheTtl.toMillis())).exceptionally(error -> {
                cacheFailures.increment();
                return null;
              });
        }
      }
      return List.of(answers);
    });
  }

  private static boolean tableMissing(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof TableNotFoundException) {
        return true;
      }
    }
    return false;
  }

  private static @Nullable ItemStats parse(ItemKey item, byte[] value) {
    try {
      return ItemStats.parseFrom(value).toBuilder().setItem(item).build();
    } catch (InvalidProtocolBufferException e) {
      return null; // not ours (or a newer format): read HBase and overwrite
    }
  }

  private byte[] key(ItemKey item) {
    return (keyPrefix + "is:" + item.getBusinessValue() + ":" + item.getOid()).getBytes(StandardCharsets.UTF_8);
  }

  private static List<Integer> allIndexes(int n) {
    List<Integer> all = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      all.add(i);
    }
    return all;
  }
}
