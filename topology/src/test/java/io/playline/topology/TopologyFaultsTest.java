package io.playline.topology;

import static io.playline.topology.SharedTopology.FAMILY;
import static io.playline.topology.SharedTopology.MAX_PENDING;
import static io.playline.topology.SharedTopology.PENDING_CAP;
import static io.playline.topology.SharedTopology.SECRET;
import static io.playline.topology.SharedTopology.TOMBSTONE_CAP;
import static io.playline.topology.SharedTopology.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.core.store.HistoryRowKeys;
import io.playline.embedded.EmbeddedRedisCluster;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fault suite on the production topology ({@link SharedTopology}), after {@link TopologyTest}:
 * under a steady load of players writing and deleting unique items, kill -9 of one gateway, one
 * job, one Redis master (restarted) and one Kafka broker, one at a time, and HBase stopped for a
 * minute; then every acked item is in HBase at its latest acked progress or later and no item
 * whose delete was acked is there. Then every Kafka broker down at once, the write-back within its cap.
 */
@Order(2)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(SharedTopology.Resolver.class)
class TopologyFaultsTest {
  /** How long HBase is down in the fault suite; {@code -Dplayline.faults.hbase.stop=PT5M} to soak. */
  private static final Duration HBASE_STOP = Duration.parse(System.getProperty("playline.faults.hbase.stop", "PT60S"));
  /** How long every Kafka broker is down in the outage test; {@code -Dplayline.faults.kafka.outage=PT30M} to soak. */
  private static final Duration KAFKA_OUTAGE = Duration.parse(System.getProperty("playline.faults.kafka.outage", "PT45S"));

  private static SharedTopology shared;
  private static LocalTopology topology;
  private static double jobLagSeconds;
  private static int unreadyGatewaySamples;
  private static Connection hbase;

  @BeforeAll
  static void share(SharedTopology topologyOfTheRun) {
    shared = topologyOfTheRun;
    topology = shared.topology();
    hbase = shared.hbase();
  }

  /** The last of the topology's tests: stops it. */
  @AfterAll
  static void stop() throws IOException {
    shared.close();
  }

  @Test
  @Order(3)
  void nothingAckedIsLostWhenAGatewayAJobARedisMasterAndAKafkaBrokerAreKilledAndHBaseStops() throws Exception {
    SteadyLoad load = new SteadyLoad(TopologyFaultsTest::liveGatewayPorts, SECRET, Duration.ofMillis(100))
        .start(6_000_000, 20);
    try {
      awaitMoreAcks(load, 200);

      RoleProcess gateway = topology.gateways().get(0);
      gateway.kill();
      awaitMoreAcks(load, 300);
      assertThat(load.reconnects()).as("players of the killed node moved").isPositive();
      gateway.restart();

      RoleProcess job = topology.jobs().get(0);
      RoleProcess survivor = topology.jobs().get(1);
      job.kill();
      await("the surviving job takes over every partition and shard").atMost(WAIT).ignoreExceptions()
          .untilAsserted(() -> {
            assertThat(Metrics.gauge(survivor, "playline_job_partitions_assigned")).isEqualTo(12);
            assertThat(Metrics.gauge(survivor, "playline_job_recovery_shards_owned")).isEqualTo(16);
          });
      awaitMoreAcks(load, 200);
      job.restart();

      EmbeddedRedisCluster.Node master = topology.redis().masterOf(0);
      topology.redis().killMaster(master);
      awaitMoreAcks(load, 300);
      topology.redis().restart(master, WAIT);

      topology.kafka().kill(1);
      awaitMoreAcks(load, 300);
      topology.kafka().restart(1);
      awaitMoreAcks(load, 200);

      // HBase stopped (a minute): heartbeats need only Redis, so players keep being acked, and the
      // jobs' lag shows the records they cannot persist yet.
      topology.hbase().kill();
      long back = System.nanoTime() + HBASE_STOP.toNanos();
      long target = load.acks() + 300;
      await("load without HBase").atMost(HBASE_STOP.plus(WAIT)).pollInterval(Duration.ofSeconds(1))
          .ignoreExceptions().until(() -> {
            for (RoleProcess j : topology.jobs()) {
              jobLagSeconds = Math.max(jobLagSeconds, Metrics.gauge(j, "playline_job_lag_seconds"));
            }
            countUnready(topology.gateways());
            return System.nanoTime() - back >= 0 && load.acks() >= target;
          });
      topology.hbase().restart();
      awaitMoreAcks(load, 200);
    } finally {
      load.stop();
    }
    assertThat(jobLagSeconds).as("the jobs' lag while HBase was down").isGreaterThan(HBASE_STOP.toSeconds() / 2.0);
    assertThat(unreadyGatewaySamples).as("gateway /readyz samples not 200 while HBase was down").isZero();

    Map<SteadyLoad.Item, Long> acked = load.acked();
    Set<SteadyLoad.Item> deleted = load.deleted();
    assertThat(acked.size()).as("items acked").isGreaterThan(20 * 10);
    assertThat(deleted.size()).as("deletes acked").isGreaterThan(20);
    await("every acked item in HBase at its latest acked progress or later, no deleted one").atMost(Duration.ofMinutes(3))
        .ignoreExceptions().untilAsserted(() -> {
          Outcome outcome = check(acked, deleted);
          assertThat(outcome.problems()).isEmpty();
        });
    Outcome outcome = check(acked, deleted);
    System.out.printf("Fault suite: %d heartbeats and %d deletes acked over %d items (%d reconnects, %d unanswered); "
        + "HBase down %s, job lag up to %.0f s; HBase: %d missing, %d regressed, %d resurrected%n", load.acks(),
        load.deletes(), acked.size() + deleted.size(), load.reconnects(), load.unanswered(), HBASE_STOP, jobLagSeconds,
        outcome.missing(), outcome.regressed(), outcome.resurrected());
  }

  @Test
  @Order(4)
  void writeBackStaysWithinItsCapWhileKafkaIsDownAndEverythingArrivesAfterwards() throws Exception {
    SteadyLoad load = new SteadyLoad(TopologyFaultsTest::liveGatewayPorts, SECRET, Duration.ofMillis(100))
        .start(7_000_000, 20);
    // Users first seen while Kafka is down: their first-today events wait in the Redis outboxes, and
    // the queue of the gateway killed below dies with it.
    SteadyLoad late = new SteadyLoad(TopologyFaultsTest::liveGatewayPorts, SECRET, Duration.ofMillis(100));
    RoleProcess killed = topology.gateways().get(1);
    unreadyGatewaySamples = 0;
    double maxPending = 0;
    double maxHeap = 0;
    try {
      awaitMoreAcks(load, 200);
      for (int node = 1; node <= topology.kafka().nodeCount(); node++) {
        topology.kafka().kill(node);
      }
      long back = System.nanoTime() + KAFKA_OUTAGE.toNanos();
      late.start(7_100_000, 10);
      awaitMoreAcks(late, 100);
      killed.kill();
      double[] peak = new double[2];
      // Sampled once a second for the whole outage: each live gateway's pending items and heap.
      await("the outage under load").atMost(KAFKA_OUTAGE.plus(WAIT)).pollInterval(Duration.ofSeconds(1))
          .ignoreExceptions().until(() -> {
            for (RoleProcess g : topology.gateways()) {
              if (g.isAlive()) {
                peak[0] = Math.max(peak[0], Metrics.gauge(g, "playline_writeback_pending"));
                peak[1] = Math.max(peak[1], Metrics.samples(g, "jvm_memory_used_bytes{area=\"heap\","));
              }
            }
            countUnready(topology.gateways());
            return System.nanoTime() - back >= 0;
          });
      maxPending = peak[0];
      maxHeap = peak[1];
      assertThat(load.acks()).as("players acked throughout").isPositive();
      topology.kafka().restartAll();
      killed.restart();
      awaitMoreAcks(load, 200);
    } finally {
      load.stop();
      late.stop();
    }
    // Unsent upserts are trimmed to the hard cap; new ones are folded in every writeback.max.pending.
    assertThat(unreadyGatewaySamples).as("gateway /readyz samples not 200 while Kafka was down").isZero();
    assertThat(maxPending).as("a gateway's pending write-back upserts and tombstones")
        .isLessThanOrEqualTo(PENDING_CAP + MAX_PENDING + TOMBSTONE_CAP);
    Map<SteadyLoad.Item, Long> acked = new java.util.HashMap<>(load.acked());
    acked.putAll(late.acked());
    Set<SteadyLoad.Item> deleted = new java.util.HashSet<>(load.deleted());
    deleted.addAll(late.deleted());
    await("every acked item in HBase after the outage").atMost(Duration.ofMinutes(3)).ignoreExceptions()
        .untilAsserted(() -> assertThat(check(acked, deleted).problems()).isEmpty());
    Outcome outcome = check(acked, deleted);
    double dropped = 0;
    for (RoleProcess g : topology.gateways()) {
      dropped += Metrics.gauge(g, "playline_writeback_dropped_total");
    }
    // Every user acked at least once was counted first today: its event reaches the topic.
    Set<Long> users = new java.util.TreeSet<>();
    acked.keySet().forEach(i -> users.add(i.uid()));
    Map<Long, Integer> events = new java.util.HashMap<>();
    try (FirstTodayReader reader = new FirstTodayReader(topology.kafka().bootstrapServers())) {
      await("a first-today event for every user").atMost(Duration.ofMinutes(3)).ignoreExceptions()
          .untilAsserted(() -> {
            reader.readInto(events);
            assertThat(events.keySet()).containsAll(users);
          });
    }
    long duplicates = users.stream().mapToLong(u -> events.get(u) - 1).sum();
    System.out.printf("Kafka outage of %s: %d heartbeats and %d deletes acked over %d items; per gateway at most %.0f "
        + "pending items (bound %d) and %.0f MB heap; %.0f upserts dropped to the recovery sweep; HBase: %d missing, "
        + "%d regressed, %d resurrected; first-today: %d users (%d first seen during the outage, one gateway killed), "
        + "%d missing, %d duplicates%n", KAFKA_OUTAGE, load.acks() + late.acks(), load.deletes() + late.deletes(),
        acked.size() + deleted.size(), maxPending, PENDING_CAP + MAX_PENDING + TOMBSTONE_CAP, maxHeap / 1e6, dropped,
        outcome.missing(), outcome.regressed(), outcome.resurrected(), users.size(),
        users.stream().filter(u -> u >= 7_100_000).count(), 0, duplicates);
  }

  /**
   * Samples every running gateway's {@code /readyz}: an HBase or Kafka outage must not take one out
   * of rotation (a gateway the test killed is skipped).
   */
  private static void countUnready(List<RoleProcess> gateways) throws IOException, InterruptedException {
    for (RoleProcess g : gateways) {
      if (g.isAlive() && Metrics.status(g, "/readyz") != 200) {
        unreadyGatewaySamples++;
      }
    }
  }

  /** What HBase holds against what was acked; {@code problems} names each mismatch. */
  private record Outcome(int missing, int regressed, int resurrected, List<String> problems) {}

  /**
   * Reads every acked item and every item whose delete was acked straight from HBase: a missing or
   * older acked item, or a deleted item present, is a problem.
   */
  private static Outcome check(Map<SteadyLoad.Item, Long> acked, Set<SteadyLoad.Item> deleted) throws IOException {
    Map<Long, Result> rows = new java.util.HashMap<>();
    try (Table table = hbase.getTable(TableName.valueOf("playline:history"))) {
      Set<Long> uids = new java.util.HashSet<>();
      acked.keySet().forEach(i -> uids.add(i.uid()));
      deleted.forEach(i -> uids.add(i.uid()));
      for (long uid : uids) {
        rows.put(uid, table.get(new Get(HistoryRowKeys.row(uid))));
      }
    }
    int missing = 0;
    int regressed = 0;
    int resurrected = 0;
    List<String> problems = new ArrayList<>();
    for (Map.Entry<SteadyLoad.Item, Long> e : acked.entrySet()) {
      byte[] v = stored(rows, e.getKey());
      if (v == null) {
        missing++;
        problems.add(e.getKey() + " acked at " + e.getValue() + ", missing from HBase");
      } else if (HistoryRecord.parseFrom(v).getProgressMs() < e.getValue()) {
        regressed++;
        problems.add(e.getKey() + " acked at " + e.getValue() + ", HBase " + HistoryRecord.parseFrom(v).getProgressMs());
      }
    }
    for (SteadyLoad.Item item : deleted) {
      if (stored(rows, item) != null) {
        resurrected++;
        problems.add(item + " deleted, back in HBase");
      }
    }
    return new Outcome(missing, regressed, resurrected, problems);
  }

  private static byte[] stored(Map<Long, Result> rows, SteadyLoad.Item item) {
    return rows.get(item.uid()).getValue(FAMILY, HistoryRowKeys.qualifier(Business.VIDEO, item.oid()));
  }

  private static List<Integer> liveGatewayPorts() {
    List<Integer> ports = new ArrayList<>();
    for (RoleProcess g : topology.gateways()) {
      if (g.isAlive()) {
        ports.add(g.port("websocket"));
      }
    }
    return ports;
  }

  private static void awaitMoreAcks(SteadyLoad load, long more) {
    long target = load.acks() + more;
    await("players acked again").atMost(WAIT).until(() -> load.acks() >= target);
  }
}
