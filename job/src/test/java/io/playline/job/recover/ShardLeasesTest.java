package io.playline.job.recover;

import static io.playline.job.JobTestEnv.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.job.config.JobConfig;
import io.playline.job.metrics.JobMetrics;
import io.playline.job.sink.HistorySink;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.time.Time;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Job instances split the recovery shards with leases in the real Redis; no HBase: sinks record. */
@ExtendWith(RealRedisExtension.class)
class ShardLeasesTest {
  private static final int SHARDS = 16;
  private static final Set<Integer> ALL = IntStream.range(0, SHARDS).boxed().collect(Collectors.toSet());

  private final List<Instance> instances = new ArrayList<>();
  private @Nullable RedisConnections redis;
  private @Nullable RedisKeys keys;

  @AfterEach
  void tearDown() {
    instances.forEach(i -> i.sweeper.close());
    if (redis != null) {
      redis.close();
    }
  }

  @Test
  void twoInstancesHoldDisjointHalvesThatCoverEveryShardAndKeepThem(RedisNamespace ns) {
    List<Instance> ab = startSplit(ns, "2s", "a", "b");
    Instance a = ab.get(0);
    Instance b = ab.get(1);

    assertThat(a.owned()).hasSize(8);
    assertThat(a.gauge("playline.job.recovery.shards.owned")).isEqualTo(8);
    // An instance whose first tick ran before the other joined learns of it at its next heartbeat.
    await().atMost(Duration.ofSeconds(10)).until(() -> a.gauge("playline.job.recovery.instances") == 2);
    for (Instance i : List.of(a, b)) {
      for (int shard : i.owned()) {
        assertThat(leaseHolder(shard)).as("lease of shard %s in Redis", shard).isEqualTo(i.owner());
      }
    }

    // Settled: later sweeps neither move nor lose a lease.
    Set<Integer> aShards = a.owned();
    double aSweeps = a.counter("playline.job.recovery.sweeps");
    double bSweeps = b.counter("playline.job.recovery.sweeps");
    await().atMost(Duration.ofSeconds(10)).until(() -> a.counter("playline.job.recovery.sweeps") >= aSweeps + 5
        && b.counter("playline.job.recovery.sweeps") >= bSweeps + 5);
    assertThat(a.owned()).isEqualTo(aShards);
    assertThat(a.lost() + b.lost()).isZero();
    assertThat(a.registry.find("playline.job.recovery.sweep.shards").summary().max()).isGreaterThanOrEqualTo(8);
  }

  @Test
  void aThirdInstanceJoiningTakesItsShareFromTheOthers(RedisNamespace ns) {
    startSplit(ns, "2s", "a", "b");

    startSplit(ns, "2s", "c");

    assertThat(instances).extracting(i -> i.owned().size()).containsExactlyInAnyOrder(5, 5, 6);
  }

  @Test
  void aCrashedInstancesShardsPassToTheSurvivorAfterTheTtl(RedisNamespace ns) {
    // A TTL long enough that the leases cannot lapse between the split and the checks after the
    // crash, even on a stalled machine; the takeover then waits it out.
    List<Instance> ab = startSplit(ns, "3s", "a", "b");
    Instance a = ab.get(0);
    Instance b = ab.get(1);
    Set<Integer> bShards = b.owned();

    b.sweeper.crash();

    for (int shard : bShards) {
      assertThat(leaseHolder(shard)).as("a crash releases nothing").isEqualTo(b.owner());
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> a.owned().equals(ALL));
    assertThat(a.leases("acquired")).isGreaterThanOrEqualTo(SHARDS);
  }

  @Test
  void aClosedInstanceHandsItsShardsOverWithoutWaitingForTheTtl(RedisNamespace ns) {
    List<Instance> ab = startSplit(ns, "1h", "a", "b");
    Set<Integer> bShards = ab.get(1).owned();
    String bOwner = ab.get(1).owner();
    // Counted since start: b may already have released some to a while the two settled the split.
    double releasedBefore = ab.get(1).leases("released");

    ab.get(1).sweeper.close();

    assertThat(ab.get(1).leases("released") - releasedBefore).isEqualTo(bShards.size());
    // Released, not left to a one-hour TTL: free, or already taken by the survivor (it ticks every 100 ms).
    assertThat(bShards).allSatisfy(shard -> assertThat(leaseHolder(shard)).as("lease of shard %s", shard)
        .isNotEqualTo(bOwner));
    await().atMost(Duration.ofSeconds(10)).until(() -> ab.get(0).owned().equals(ALL));
  }

  @Test
  void marksArePersistedOnlyByTheInstanceHoldingTheirShard(RedisNamespace ns) {
    Set<Long> uids = LongStream.rangeClosed(1, 2 * SHARDS).boxed().collect(Collectors.toSet());
    List<Instance> ab = startSplit(ns, "2s", "a", "b");
    Instance a = ab.get(0);
    Instance b = ab.get(1);
    Set<Integer> aShards = a.owned();
    uids.forEach(this::putLostItem);

    await().atMost(Duration.ofSeconds(15)).until(() -> a.sink.uids.size() + b.sink.uids.size() == uids.size());

    assertThat(a.owned()).isEqualTo(aShards);
    assertThat(a.sink.uids).isEqualTo(uidsOf(uids, a.owned()));
    assertThat(b.sink.uids).isEqualTo(uidsOf(uids, b.owned()));
  }

  @Test
  void aSweepStopsAtTheNextPageOnceItsShardsLeaseIsAnotherInstances(RedisNamespace ns) {
    Instance a = instance(ns, "a", "1h", Map.of("recovery.batch.size", "1"));
    assertThat(a.sweeper.sweep().marks()).isZero();
    assertThat(a.owned()).isEqualTo(ALL);
    putLostItem(3);
    putLostItem(3 + SHARDS);
    putLostItem(4);
    // While the first page of shard 3 is persisted, its lease lapses and another instance takes it.
    a.sink.onWrite = changes -> {
      if (changes.get(0).getUid() % SHARDS == 3) {
        redis().shared().set(keys().recoveryLease(3), "other".getBytes(StandardCharsets.UTF_8))
            .toCompletableFuture().join();
      }
    };

    RecoverySweeper.SweepResult result = a.sweeper.sweep();

    assertThat(result.recovered()).isEqualTo(2);
    assertThat(a.sink.uids).hasSize(2).contains(4L);
    assertThat(a.owned()).doesNotContain(3).hasSize(SHARDS - 1);
    assertThat(a.lost()).isEqualTo(1);
  }

  /**
   * Starts an instance per id, sweeping every 100ms, and waits until all this test's instances
   * hold disjoint lease sets of even sizes that together cover every shard; returns the new ones.
   */
  private List<Instance> startSplit(RedisNamespace ns, String ttl, String... ids) {
    List<Instance> started = new ArrayList<>();
    for (String id : ids) {
      Instance i = instance(ns, id, ttl, Map.of("recovery.interval", "100ms"));
      i.sweeper.start();
      started.add(i);
    }
    int n = instances.size();
    List<Integer> even = new ArrayList<>();
    for (int rank = 0; rank < n; rank++) {
      even.add(SHARDS / n + (rank < SHARDS % n ? 1 : 0));
    }
    even.sort(null);
    await().atMost(Duration.ofSeconds(15)).until(() -> {
      Set<Integer> union = new HashSet<>();
      List<Integer> sizes = new ArrayList<>();
      for (Instance i : instances) {
        Set<Integer> owned = i.owned();
        sizes.add(owned.size());
        union.addAll(owned);
      }
      sizes.sort(null);
      // Sizes adding up to the shards and a union of every shard: no shard held twice.
      return union.equals(ALL) && sizes.equals(even);
    });
    return started;
  }

  private Instance instance(RedisNamespace ns, String id, String ttl, Map<String, String> overrides) {
    Map<String, String> settings = new HashMap<>(overrides);
    settings.put("redis.key.prefix", ns.keyPrefix());
    settings.put("job.instance.id", id);
    settings.put("recovery.lease.ttl", ttl);
    ConfigSource source = ConfigSource.empty().with(settings);
    CoreConfig core = CoreConfig.from(source);
    if (redis == null) {
      redis = RedisConnections.connect(ns.redisUri(), false, Duration.ofSeconds(5));
      keys = new RedisKeys(core.redisKeyPrefix());
    }
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RecordingSink sink = new RecordingSink();
    RecoverySweeper sweeper = new RecoverySweeper(JobConfig.from(source, core), core, redis(), sink,
        new JobMetrics(registry, Time.SYSTEM), () -> true, Time.SYSTEM);
    Instance i = new Instance(sweeper, sink, registry);
    instances.add(i);
    return i;
  }

  /** An item whose write-back never arrived: its record in Redis, its recovery mark ten minutes old. */
  private void putLostItem(long uid) {
    HistoryRecord r = record(uid, Business.VIDEO, 1, 1_000, System.currentTimeMillis() - 600_000);
    redis().shared().hset(keys().records(uid), RedisKeys.member(Business.VIDEO, 1), r.toByteArray())
        .toCompletableFuture().join();
    redis().shared().zadd(keys().recovery(RedisKeys.recoveryShard(uid, SHARDS)), (double) r.getViewTimeMs(),
        RedisKeys.recoveryMember(uid, RedisKeys.member(Business.VIDEO, 1))).toCompletableFuture().join();
  }

  private @Nullable String leaseHolder(int shard) {
    byte[] v = redis().shared().get(keys().recoveryLease(shard)).toCompletableFuture().join();
    return v == null ? null : new String(v, StandardCharsets.UTF_8);
  }

  private static Set<Long> uidsOf(Set<Long> uids, Set<Integer> shards) {
    return uids.stream().filter(u -> shards.contains((int) (u % SHARDS))).collect(Collectors.toSet());
  }

  private RedisConnections redis() {
    if (redis == null) {
      throw new IllegalStateException("no instance yet");
    }
    return redis;
  }

  private RedisKeys keys() {
    if (keys == null) {
      throw new IllegalStateException("no instance yet");
    }
    return keys;
  }

  private record Instance(RecoverySweeper sweeper, RecordingSink sink, SimpleMeterRegistry registry) {
    Set<Integer> owned() {
      return sweeper.ownedShards();
    }

    String owner() {
      return sweeper.leaseOwner();
    }

    double lost() {
      return leases("lost");
    }

    /** The count of lease events {@code event} (acquired, renewed, lost, released). */
    double leases(String event) {
      return registry.get("playline.job.recovery.leases").tag("event", event).counter().count();
    }

    double counter(String name) {
      return registry.get(name).counter().count();
    }

    double gauge(String name) {
      return registry.get(name).gauge().value();
    }
  }

  /** Records the users it was given; {@link #onWrite} runs first, on the sweeper's thread. */
  private static final class RecordingSink implements HistorySink {
    final Set<Long> uids = ConcurrentHashMap.newKeySet();
    volatile Consumer<List<HistoryChange>> onWrite = changes -> {};

    @Override
    public void write(List<HistoryChange> changes) {
      onWrite.accept(changes);
      changes.forEach(c -> uids.add(c.getUid()));
    }

    @Override
    public void prepare() {}

    @Override
    public void close() {}
  }
}
