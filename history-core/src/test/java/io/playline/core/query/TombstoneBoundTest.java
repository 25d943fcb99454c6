package io.playline.core.query;

import static io.playline.core.query.QueryTestEnv.item;
import static io.playline.core.query.QueryTestEnv.join;
import static io.playline.core.query.QueryTestEnv.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ItemKey;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.ManualTime;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Tombstone amplification (issue 28): deleting never-played items keeps a user's tombstones within
 * {@code history.tombstones.max.per.user}, and no delete reads the whole tombstones hash; yet no
 * acked delete is lost to the cap: only tombstones older than the eviction age (their delete is in
 * HBase by then) are evicted, a delete that would need a younger one is refused with nothing
 * applied, and the eviction floor keeps refusing late events of the evicted items. The service runs
 * on a manual time that starts hours in the past, so heartbeats (on the real clock) are never clamped.
 */
@ExtendWith({RealRedisExtension.class, RealHBaseExtension.class})
class TombstoneBoundTest {
  private static final long UID = 2828;
  private static final int CAP = 32;
  private QueryTestEnv env;
  private ManualTime time;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private TieredHistoryService service;
  private long evictionAge;

  @BeforeEach
  void setUp(RedisNamespace redis, HBaseNamespace hbase) {
    // The eviction path needs an age below the tombstone TTL (by default nothing is evicted).
    start(redis, hbase, Map.of("history.tombstones.max.per.user", Integer.toString(CAP),
        "history.tombstone.eviction.age", "330s"));
  }

  private void start(RedisNamespace redis, HBaseNamespace hbase, Map<String, String> settings) {
    if (env != null) {
      env.close();
    }
    env = new QueryTestEnv(redis, hbase, settings);
    evictionAge = env.config.tombstoneEvictionAge().toMillis();
    time = new ManualTime(Instant.ofEpochMilli(env.now - TimeUnit.HOURS.toMillis(6)));
    service = new TieredHistoryService(env.config, env.redis, env.hbaseClient, env.sink, registry, time);
  }

  /** Moves the service's time forward to {@code ms} (epoch). */
  private void advanceTo(long ms) {
    time.advance(Duration.ofMillis(ms - time.millis()));
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  @Test
  void byDefaultATombstoneIsNeverEvictedAndADeleteOverTheCapWaitsForTheOldestToExpire(RedisNamespace redis,
      HBaseNamespace hbase) {
    start(redis, hbase, Map.of("history.tombstones.max.per.user", Integer.toString(CAP)));
    assertThat(env.config.tombstoneEvictionAge()).isEqualTo(env.config.tombstoneTtl());
    long first = time.millis();
    join(service.delete(UID, items(0, CAP)));
    time.advance(Duration.ofHours(1));

    Throwable refused = failure(service.delete(UID, List.of(item(Business.VIDEO, 500))));

    assertThat(refused).isInstanceOf(RateLimitedException.class);
    assertThat(((RateLimitedException) refused).retryAfterMs())
        .isEqualTo(first + env.config.tombstoneTtl().toMillis() - time.millis() + 1);
    assertThat(join(env.redis.shared().hlen(env.keys.tombstones(UID)))).isEqualTo(CAP);
    assertThat(registry.get("playline.query.tombstones.evicted").counter().count()).isZero();
  }

  @Test
  void deletingNeverPlayedItemsKeepsTheTombstonesWithinTheirCapWithoutReadingTheHash() {
    join(env.redis.shared().configResetstat());
    for (int call = 0; call < 50; call++) {
      join(service.delete(UID, items(call * 10, 10)));
      time.advance(Duration.ofMillis(evictionAge + 1));
    }

    assertThat(join(env.redis.shared().hlen(env.keys.tombstones(UID)))).isEqualTo(CAP + 1); // + the floor
    assertThat(join(env.redis.shared().zcard(env.keys.tombstoneOrder(UID)))).isEqualTo(CAP);
    assertThat(registry.get("playline.query.tombstones.evicted").counter().count()).isEqualTo(500 - CAP);
    // Each delete touched its own items and the index by rank: nothing walked the hash.
    assertThat(commandStats()).doesNotContain("cmdstat_hgetall", "cmdstat_hscan", "cmdstat_hkeys", "cmdstat_hvals");
  }

  @Test
  void aDeleteOverTheCapWhileEveryTombstoneIsYoungIsRefusedWithNothingApplied() {
    long first = time.millis();
    join(service.delete(UID, items(0, CAP)));
    time.advance(Duration.ofMillis(1000));
    env.heartbeat(record(UID, Business.VIDEO, 500, 1, env.now - 1000));
    int sent = env.sink.ops().size();

    Throwable refused = failure(service.delete(UID, List.of(item(Business.VIDEO, 500))));

    assertThat(refused).isInstanceOf(RateLimitedException.class).hasMessageContaining("retry after");
    assertThat(((RateLimitedException) refused).retryAfterMs()).isEqualTo(first + evictionAge - time.millis() + 1);
    assertThat(join(env.redis.shared().hlen(env.keys.tombstones(UID)))).isEqualTo(CAP);
    assertThat(join(env.redis.shared().hexists(env.keys.tombstones(UID), bytes("1:500")))).isFalse();
    assertThat(join(env.redis.shared().zscore(env.keys.timeline(UID), bytes("1:500")))).isNotNull();
    assertThat(env.sink.ops()).hasSize(sent);
    assertThat(registry.get("playline.query.deletes.refused").counter().count()).isEqualTo(1);
    // Every one of the first deletes still refuses its late events.
    assertThat(env.heartbeat(record(UID, Business.VIDEO, 1, 1, first - 1)).writes().get(0).applied(0)).isFalse();

    // Once the oldest is old enough, the same delete goes through and evicts exactly one.
    advanceTo(first + evictionAge + 1);
    join(service.delete(UID, List.of(item(Business.VIDEO, 500))));
    assertThat(join(env.redis.shared().zscore(env.keys.timeline(UID), bytes("1:500")))).isNull();
    assertThat(registry.get("playline.query.tombstones.evicted").counter().count()).isEqualTo(1);
  }

  @Test
  void anEvictedTombstoneLeavesAFloorThatStillRefusesLateEventsOfItsItem() {
    long deleted = time.millis();
    join(service.delete(UID, items(0, CAP)));
    env.heartbeat(record(UID, Business.VIDEO, 3000, 1, deleted - 120_000));
    time.advance(Duration.ofMillis(evictionAge + 1));
    join(service.delete(UID, items(1000, 10)));

    assertThat(join(env.redis.shared().hexists(env.keys.tombstones(UID), bytes("1:1")))).isFalse();
    assertThat(join(env.redis.shared().hget(env.keys.tombstones(UID), bytes("~e"))))
        .isEqualTo(bytes(Long.toString(deleted)));
    // A client resending an old event of an evicted item: refused, as its tombstone did.
    assertThat(env.heartbeat(record(UID, Business.VIDEO, 1, 1, deleted - 60_000)).writes().get(0).applied(0)).isFalse();
    // Played after the delete: accepted.
    assertThat(env.heartbeat(record(UID, Business.VIDEO, 2, 1, deleted + 1)).writes().get(0).applied(0)).isTrue();
    // An item with a record keeps taking updates older than the floor.
    assertThat(env.heartbeat(record(UID, Business.VIDEO, 3000, 2, deleted - 60_000)).writes().get(0).applied(0))
        .isTrue();
  }

  @Test
  void aDeleteNamingMoreItemsThanTheCapIsRefused() {
    Throwable refused = failure(service.delete(UID, items(0, CAP + 1)));

    assertThat(refused).isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("history.tombstones.max.per.user");
    assertThat(join(env.redis.shared().exists(env.keys.tombstones(UID)))).isZero();
  }

  @Test
  void aDeleteFindingMoreExpiredTombstonesThanLuaCanUnpackSucceeds(RedisNamespace redis, HBaseNamespace hbase) {
    int n = 9000; // Lua's unpack stops near 8000 values
    start(redis, hbase, Map.of("history.tombstones.max.per.user", "20000", "query.max.items", Integer.toString(n),
        "history.tombstone.eviction.age", "330s"));
    byte[] tombstones = env.keys.tombstones(UID);
    byte[] order = env.keys.tombstoneOrder(UID);
    long expired = time.millis() - env.config.tombstoneTtl().toMillis() - 1;
    Map<byte[], byte[]> fields = new java.util.HashMap<>();
    Map<byte[], Double> scores = new java.util.HashMap<>();
    for (int oid = 0; oid < n; oid++) {
      byte[] member = bytes("2:" + (oid + 1));
      fields.put(member, bytes(Long.toString(expired)));
      scores.put(member, (double) expired);
    }
    join(env.redis.shared().hset(tombstones, fields));
    List<Object> scoresAndMembers = new ArrayList<>();
    scores.forEach((m, s) -> {
      scoresAndMembers.add(s);
      scoresAndMembers.add(m);
    });
    join(env.redis.shared().zadd(order, scoresAndMembers.toArray()));

    join(service.delete(UID, items(0, n)));

    assertThat(join(env.redis.shared().hlen(tombstones))).isEqualTo(n);
    assertThat(join(env.redis.shared().hexists(tombstones, bytes("2:1")))).isFalse();
  }

  @Test
  void aHashFromBeforeTheIndexIsIndexedOnceAndCapped() {
    byte[] tombstones = env.keys.tombstones(UID);
    long old = time.millis() - evictionAge - 1000;
    for (int oid = 0; oid < 200; oid++) {
      join(env.redis.shared().hset(tombstones, bytes("1:" + (oid + 1)), bytes(Long.toString(old - 1000 + oid))));
    }
    join(env.redis.shared().hset(tombstones, bytes("b3"), bytes(Long.toString(old - 5000))));

    join(service.delete(UID, List.of(item(Business.VIDEO, 1000))));

    assertThat(join(env.redis.shared().hlen(tombstones))).isEqualTo(CAP + 2); // + b3 and the floor
    assertThat(join(env.redis.shared().hexists(tombstones, bytes("b3")))).isTrue();
    assertThat(join(env.redis.shared().hexists(tombstones, bytes("1:1000")))).isTrue();
    assertThat(join(env.redis.shared().hexists(tombstones, bytes("1:1")))).isFalse();
  }

  @Test
  void aUserFarOverTheCapWithYoungTombstonesIsRefusedUntilTheNewestVictimAgesThenEvictedOnce() {
    // A hash from before the index (so no cap held it): 2 000 young tombstones, two to each
    // millisecond (a tie is ordered by member, as Redis orders the index).
    byte[] tombstones = env.keys.tombstones(UID);
    int held = 2_000;
    long base = time.millis() - 5_000;
    Map<byte[], byte[]> fields = new java.util.HashMap<>();
    List<String> byAge = new ArrayList<>();
    Map<String, Long> times = new java.util.HashMap<>();
    for (int i = 0; i < held; i++) {
      String member = "1:" + (i + 1);
      times.put(member, base + i / 2);
      byAge.add(member);
      fields.put(bytes(member), bytes(Long.toString(base + i / 2)));
    }
    byAge.sort(java.util.Comparator.<String>comparingLong(times::get).thenComparing(java.util.Comparator.naturalOrder()));
    join(env.redis.shared().hset(tombstones, fields));
    join(env.redis.shared().pexpire(tombstones, env.config.tombstoneTtl().toMillis()));
    int excess = held + 1 - CAP; // one item named is fresh
    // Named out of rank order: ranks 0 and 2 (before the newest victim: it moves two ranks up), the
    // rank it then lands on (so it moves once more), one above it (passed over), and a fresh item.
    List<String> namedMembers = List.of(byAge.get(excess + 1), byAge.get(2), byAge.get(excess + 5), byAge.get(0));
    List<ItemKey> named = new ArrayList<>();
    for (String m : namedMembers) {
      named.add(item(Business.VIDEO, Long.parseLong(m.substring(2))));
    }
    named.add(item(Business.VIDEO, 9_999));
    // The victims as the cap defines them: the oldest `excess` not named.
    List<String> victims = byAge.stream().filter(m -> !namedMembers.contains(m)).limit(excess).toList();
    long newestVictim = times.get(victims.get(victims.size() - 1));

    for (int attempt = 0; attempt < 2; attempt++) {
      Throwable refused = failure(service.delete(UID, named));
      assertThat(refused).isInstanceOf(RateLimitedException.class);
      assertThat(((RateLimitedException) refused).retryAfterMs())
          .isEqualTo(newestVictim + evictionAge - time.millis() + 1);
    }
    assertThat(join(env.redis.shared().hlen(tombstones))).isEqualTo(held);
    // The index made for the refused deletes expires with the hash it indexes.
    assertThat(join(env.redis.shared().pttl(env.keys.tombstoneOrder(UID)))).isPositive()
        .isLessThanOrEqualTo(env.config.tombstoneTtl().toMillis());

    advanceTo(newestVictim + evictionAge + 1);
    join(service.delete(UID, named));

    assertThat(registry.get("playline.query.tombstones.evicted").counter().count()).isEqualTo(excess);
    assertThat(join(env.redis.shared().zcard(env.keys.tombstoneOrder(UID)))).isEqualTo(CAP);
    assertThat(join(env.redis.shared().hget(tombstones, bytes("~e")))).isEqualTo(bytes(Long.toString(newestVictim)));
    List<String> kept = join(env.redis.shared().hkeys(tombstones)).stream()
        .map(k -> new String(k, StandardCharsets.US_ASCII)).toList();
    assertThat(kept).doesNotContainAnyElementsOf(victims).containsAll(namedMembers).contains("1:9999", "~e");
    for (String m : namedMembers) {
      assertThat(join(env.redis.shared().hget(tombstones, bytes(m)))).isEqualTo(bytes(Long.toString(time.millis())));
    }
  }

  @Test
  void aClearOfEverythingDropsTheItemTombstonesTheirIndexAndTheFloor() {
    join(service.delete(UID, items(0, CAP)));
    time.advance(Duration.ofMillis(evictionAge + 1));
    join(service.delete(UID, items(100, 1)));
    assertThat(join(env.redis.shared().hexists(env.keys.tombstones(UID), bytes("~e")))).isTrue();

    join(service.clear(UID, List.of(), true));

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

  private static Throwable failure(CompletionStage<?> stage) {
    Throwable e = join(stage.handle((v, error) -> error));
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  private String commandStats() {
    return join(env.redis.shared().info("commandstats"));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
