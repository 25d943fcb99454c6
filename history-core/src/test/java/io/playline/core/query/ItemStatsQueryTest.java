package io.playline.core.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.playline.core.stats.ItemStatsLayout;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ItemStats;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** GetItemStats: the job's cells summed over partitions, cached (zeros too), validated like every query. */
@ExtendWith({RealRedisExtension.class, RealHBaseExtension.class})
class ItemStatsQueryTest {
  private static final ItemKey ITEM = ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(31).build();
  private static final ItemKey UNKNOWN = ItemKey.newBuilder().setBusiness(Business.COMIC).setOid(31).build();
  private QueryTestEnv env;

  @AfterEach
  void tearDown() {
    if (env != null) {
      env.close();
    }
  }

  private void start(RedisNamespace redis, HBaseNamespace hbase, Map<String, String> settings) throws IOException {
    env = new QueryTestEnv(redis, hbase, settings);
    ItemStatsLayout layout = ItemStatsLayout.of(env.config.hbase());
    try (Admin admin = hbase.connection().getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(layout.stats())
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(ItemStatsLayout.STATS_FAMILY)).build());
    }
  }

  /** As the job writes them: per partition viewers, finishes, newest view time and applied offset. */
  private void write(ItemKey item, int partition, long viewers, long finishes, long lastMs) throws IOException {
    try (Table table = env.hbase.connection().getTable(ItemStatsLayout.of(env.config.hbase()).stats())) {
      table.put(new Put(ItemStatsLayout.row(item))
          .addColumn(ItemStatsLayout.STATS_FAMILY, ItemStatsLayout.counter('v', ItemStatsLayout.stream("t", partition)), Bytes.toBytes(viewers))
          .addColumn(ItemStatsLayout.STATS_FAMILY, ItemStatsLayout.counter('f', ItemStatsLayout.stream("t", partition)), Bytes.toBytes(finishes))
          .addColumn(ItemStatsLayout.STATS_FAMILY, ItemStatsLayout.counter('t', ItemStatsLayout.stream("t", partition)), Bytes.toBytes(lastMs))
          .addColumn(ItemStatsLayout.STATS_FAMILY, ItemStatsLayout.counter('o', ItemStatsLayout.stream("t", partition)), Bytes.toBytes(99L)));
    }
  }

  private static ItemStats stats(ItemKey item, long viewers, long finishes, long last) {
    return ItemStats.newBuilder().setItem(item).setViewers(viewers).setFinishes(finishes).setLastViewTimeMs(last)
        .build();
  }

  private static <T> T join(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private double lookups(String source) {
    return env.registry.find("playline.item.stats.lookups").tag("source", source).counter().count();
  }

  @Test
  void sumsThePartitionsAnswersZerosForUnknownItemsAndCachesBoth(RedisNamespace redis, HBaseNamespace hbase)
      throws Exception {
    start(redis, hbase, Map.of());
    write(ITEM, 0, 5, 2, 1_000);
    write(ITEM, 3, 7, 1, 4_000);

    List<ItemStats> first = join(env.service.itemStats(List.of(ITEM, UNKNOWN, ITEM)));
    assertThat(first).containsExactly(stats(ITEM, 12, 3, 4_000), stats(UNKNOWN, 0, 0, 0));
    assertThat(lookups("hbase")).isEqualTo(2);

    // Within the cache's 30 s the answers come from Redis, the unknown item's zeros too.
    write(ITEM, 5, 100, 100, 9_000);
    write(UNKNOWN, 0, 1, 1, 1);
    assertThat(join(env.service.itemStats(List.of(UNKNOWN, ITEM))))
        .containsExactly(stats(UNKNOWN, 0, 0, 0), stats(ITEM, 12, 3, 4_000));
    assertThat(lookups("hbase")).isEqualTo(2);
    assertThat(lookups("cache")).isEqualTo(2);
  }

  @Test
  void withoutTheCacheEveryCallReadsHBase(RedisNamespace redis, HBaseNamespace hbase) throws Exception {
    start(redis, hbase, Map.of("item.stats.cache.ttl", "0s"));
    write(ITEM, 1, 1, 0, 10);
    assertThat(join(env.service.itemStats(List.of(ITEM)))).containsExactly(stats(ITEM, 1, 0, 10));
    write(ITEM, 1, 2, 1, 20);
    assertThat(join(env.service.itemStats(List.of(ITEM)))).containsExactly(stats(ITEM, 2, 1, 20));
    assertThat(lookups("hbase")).isEqualTo(2);
    assertThat(lookups("cache")).isZero();
  }

  @Test
  void itemsAreValidatedAndBounded(RedisNamespace redis, HBaseNamespace hbase) throws Exception {
    start(redis, hbase, Map.of("query.max.items", "2"));
    assertThat(join(env.service.itemStats(List.of()))).isEmpty();
    assertInvalid(env.service.itemStats(List.of(ITEM, UNKNOWN, ITEM)), "items: 3 entries (expected: at most 2)");
    assertInvalid(env.service.itemStats(List.of(ItemKey.newBuilder().setOid(5).build())),
        "items[0].business: 0 (expected: a known business)");
    assertInvalid(env.service.itemStats(List.of(ItemKey.newBuilder().setBusiness(Business.LIVE).setOid(0).build())),
        "items[0].oid: 0 (expected: > 0)");
    assertThat(lookups("hbase") + lookups("cache")).isZero();
  }

  private static void assertInvalid(CompletionStage<?> stage, String message) {
    assertThatThrownBy(() -> stage.toCompletableFuture().get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class).cause().isInstanceOf(InvalidRequestException.class)
        .hasMessage(message);
  }
}
