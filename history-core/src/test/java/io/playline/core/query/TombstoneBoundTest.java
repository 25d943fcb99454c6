package io.playline.core.query;

import static io.playline.core.query.QueryTestEnv.item;
import static io.playline.core.query.QueryTestEnv.join;
import static io.playline.core.query.QueryTestEnv.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.playline.proto.v1.Business;
import io.playline.proto.v1.ItemKey;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Tombstone amplification (issue 28): deleting never-played items keeps a user's tombstones within
 * {@code history.tombstones.max.per.user}, and no delete reads the whole tombstones hash.
 */
@ExtendWith({RealRedisExtension.class, RealHBaseExtension.class})
class TombstoneBoundTest {
  private static final long UID = 2828;
  private static final int CAP = 32;
  private QueryTestEnv env;

  @BeforeEach
  void setUp(RedisNamespace redis, HBaseNamespace hbase) {
    env = new QueryTestEnv(redis, hbase, Map.of("history.tombstones.max.per.user", Integer.toString(CAP)));
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  @Test
  void deletingNeverPlayedItemsKeepsTheTombstonesWithinTheirCapWithoutReadingTheHash() {
    join(env.redis.shared().configResetstat());
    for (int call = 0; call < 50; call++) {
      join(env.service.delete(UID, items(call * 10, 10)));
    }

    assertThat(join(env.redis.shared().hlen(env.keys.tombstones(UID)))).isEqualTo(CAP);
    assertThat(join(env.redis.shared().zcard(env.keys.tombstoneOrder(UID)))).isEqualTo(CAP);
    assertThat(env.registry.get("playline.query.tombstones.evicted").counter().count()).isEqualTo(500 - CAP);
    // Each delete touched its own items and the index by rank: nothing walked the hash.
    assertThat(commandStats()).doesNotContain("cmdstat_hgetall", "cmdstat_hscan", "cmdstat_hkeys", "cmdstat_hvals");
  }

  @Test
  void theNewestTombstonesStayAndStillRefuseLateEvents() {
    for (int call = 0; call < 10; call++) {
      join(env.service.delete(UID, items(call * 10, 10)));
    }
    long late = env.now - 60_000;

    var newest = env.heartbeat(record(UID, Business.VIDEO, 100, 1, late));
    assertThat(newest.writes().get(0).applied(0)).isFalse();
    var evicted = env.heartbeat(record(UID, Business.VIDEO, 1, 1, late));
    assertThat(evicted.writes().get(0).applied(0)).isTrue();
  }

  @Test
  void aHashFromBeforeTheIndexIsIndexedOnceAndCapped() {
    byte[] tombstones = env.keys.tombstones(UID);
    for (int oid = 0; oid < 200; oid++) {
      join(env.redis.shared().hset(tombstones, bytes("1:" + (oid + 1)), bytes(Long.toString(env.now - 1000 + oid))));
    }
    join(env.redis.shared().hset(tombstones, bytes("b3"), bytes(Long.toString(env.now - 5000))));

    join(env.service.delete(UID, List.of(item(Business.VIDEO, 1000))));

    assertThat(join(env.redis.shared().hlen(tombstones))).isEqualTo(CAP + 1);
    assertThat(join(env.redis.shared().hexists(tombstones, bytes("b3")))).isTrue();
    assertThat(join(env.redis.shared().hexists(tombstones, bytes("1:1000")))).isTrue();
    assertThat(join(env.redis.shared().hexists(tombstones, bytes("1:1")))).isFalse();
  }

  @Test
  void aClearOfEverythingDropsTheItemTombstonesAndTheirIndex() {
    join(env.service.delete(UID, items(0, 20)));

    join(env.service.clear(UID, List.of()));

    assertThat(join(env.redis.shared().hkeys(env.keys.tombstones(UID))))
        .extracting(k -> new String(k, StandardCharsets.US_ASCII)).containsExactly("*");
    assertThat(join(env.redis.shared().exists(env.keys.tombstoneOrder(UID)))).isZero();
  }

  private static List<ItemKey> items(int first, int count) {
    List<ItemKey> items = new ArrayList<>();
    for (int oid = first; oid < first + count; oid++) {
      items.add(item(Business.VIDEO, oid + 1));
    }
    return items;
  }

  private String commandStats() {
    return join(env.redis.shared().info("commandstats"));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
