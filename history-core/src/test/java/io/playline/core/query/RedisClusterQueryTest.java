package io.playline.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.config.ClusterTopologyConfig;
import io.playline.core.config.CoreConfig;
import io.playline.core.store.ClusterConnections;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.embedded.EmbeddedRedisCluster;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ItemKey;
import io.playline.testing.RealRedisClusterExtension;
import io.playline.testing.RedisClusterNamespace;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The read and user-control scripts ({@code warm_history}, {@code read_timeline}, {@code
 * delete_history}, {@code clear_history}) and lookups on a real Redis Cluster, for users on every
 * master: each script's keys are one user's, in one slot.
 */
@ExtendWith(RealRedisClusterExtension.class)
class RedisClusterQueryTest {
  /** Oldest kept view time per business 1..6 (index 0 unused): everything is kept. */
  private static final long[] ALL_BUSINESSES = {0, 0, 0, 0, 0, 0, 0};

  private RedisConnections redis;
  private RedisTimeline timeline;
  private HistoryControl control;
  private RedisKeys keys;
  private final List<String> handedOver = new ArrayList<>();
  private final long now = System.currentTimeMillis();

  @BeforeEach
  void setUp(RedisClusterNamespace ns) {
    CoreConfig config = ClusterConnections.config(ns, Map.of());
    keys = new RedisKeys(config.redisKeyPrefix());
    redis = ClusterConnections.connect(ns, Duration.ofSeconds(10), ClusterTopologyConfig.defaults());
    timeline = new RedisTimeline(config, redis, new QueryMetrics(new io.micrometer.core.instrument.simple.SimpleMeterRegistry()));
    control = new HistoryControl(config, redis, new TombstoneSink() {
      @Override
      public synchronized void delete(long uid, List<ItemKey> items, long timeMs, byte[] mark) {
        handedOver.add("delete " + uid);
      }

      @Override
      public synchronized void clear(long uid, List<Business> businesses, long timeMs, byte[] mark) {
        handedOver.add("clear " + uid);
      }
    }, new QueryMetrics(new SimpleMeterRegistry()), System::currentTimeMillis);
  }

  @AfterEach
  void tearDown() {
    redis.close();
  }

  @Test
  void warmReadDeleteAndClearWorkForUsersOnEveryMaster(RedisClusterNamespace ns) throws Exception {
    Set<EmbeddedRedisCluster.Node> owners = new HashSet<>();
    for (long uid = 1; uid <= 12; uid++) {
      owners.add(ns.cluster().masterOfKey(new String(keys.timeline(uid), StandardCharsets.US_ASCII)));
      List<TimelineEntry> entries = List.of(entry(Business.VIDEO, 1, now), entry(Business.VIDEO, 2, now - 1),
          entry(Business.forNumber(2), 3, now - 2));
      assertThat(get(timeline.warm(uid, entries, true))).isEqualTo(3);

      RedisSlice slice = get(timeline.read(uid, null, 10, ALL_BUSINESSES));
      assertThat(slice.state()).isEqualTo(RedisSlice.COMPLETE);
      assertThat(slice.entries()).extracting(TimelineEntry::member)
          .containsExactly(member(Business.VIDEO, 1), member(Business.VIDEO, 2), member(Business.forNumber(2), 3));
      assertThat(get(timeline.present(uid, List.of(member(Business.VIDEO, 2), "1:99"))))
          .containsExactly(member(Business.VIDEO, 2));

      get(control.delete(uid, List.of(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(1).build())));
      RedisTimeline.Lookup lookup = get(timeline.lookup(uid, List.of(member(Business.VIDEO, 1), member(Business.VIDEO, 2))));
      assertThat(lookup.values().get(0)).isNull();
      assertThat(lookup.values().get(1)).isNotNull();
      assertThat(lookup.tombstones().covers(member(Business.VIDEO, 1), now)).isTrue();

      get(control.clear(uid, List.of(Business.VIDEO)));
      assertThat(get(timeline.read(uid, null, 10, ALL_BUSINESSES)).entries()).extracting(TimelineEntry::member)
          .containsExactly(member(Business.forNumber(2), 3));

      assertThat(get(control.setPaused(uid, true))).isTrue();
      assertThat(get(control.paused(uid))).isTrue();
      get(control.clear(uid, List.of()));
      assertThat(get(timeline.read(uid, null, 10, ALL_BUSINESSES)).entries()).isEmpty();
    }
    assertThat(owners).as("users on every master").hasSize(3);
    assertThat(handedOver).hasSize(36);
  }

  private static TimelineEntry entry(Business business, long oid, long viewTime) {
    return new TimelineEntry(member(business, oid), viewTime, ("record-" + oid).getBytes(StandardCharsets.US_ASCII));
  }

  private static String member(Business business, long oid) {
    return new String(RedisKeys.member(business, oid), StandardCharsets.US_ASCII);
  }

  private static <T> T get(java.util.concurrent.CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
