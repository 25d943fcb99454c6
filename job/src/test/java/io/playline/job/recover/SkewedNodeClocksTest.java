package io.playline.job.recover;

import static io.playline.job.JobTestEnv.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.aggregate.UserPartitions;
import io.playline.core.aggregate.WriteBackAggregator;
import io.playline.core.aggregate.WriteBackMetrics;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.config.KafkaProducerConfig;
import io.playline.core.publish.KafkaProducers;
import io.playline.core.write.RecoveryLog;
import io.playline.core.write.RedisHistoryWriter;
import io.playline.core.write.UserWrite;
import io.playline.core.write.WriteBatch;
import io.playline.core.write.WriteMetrics;
import io.playline.job.JobTestEnv;
import io.playline.job.PlaylineJob;
import io.playline.job.config.JobConfig;
import io.playline.job.metrics.JobMetrics;
import io.playline.job.sink.HBaseHistorySink;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.SkewedTime;
import io.playline.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.Producer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two gateway nodes whose clocks are twenty minutes apart write the same item through the same
 * Redis: the flush of the node whose clock is ahead deletes its own recovery-log entry only, never
 * the entry of the later write by the node whose clock is behind, so when that node dies before its
 * flush the sweep still persists its write.
 */
@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class, RealHBaseExtension.class})
class SkewedNodeClocksTest {
  private static final long UID = 4_242;
  private static final long SKEW_MS = TimeUnit.MINUTES.toMillis(10);

  private JobTestEnv env;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeEach
  void setUp(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) {
    env = JobTestEnv.create(redis, kafka, hbase, Map.of("writeback.flush.interval", "1h"));
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    env.close();
  }

  /** One node's write-through and write-back, its clock {@code offsetMs} off the real one. */
  private record Node(RedisHistoryWriter writer, WriteBackAggregator aggregator, long offsetMs) {
    HistoryRecord write(HistoryRecord r) {
      long nowMs = System.currentTimeMillis() + offsetMs;
      writer.write(new WriteBatch(nowMs, "20261124", TimeUnit.DAYS.toMillis(2), List.of(new UserWrite(UID, List.of(r))),
          List.of())).toCompletableFuture().join();
      return r;
    }
  }

  private Node node(String id, long offsetMs) {
    Producer<byte[], byte[]> producer = KafkaProducers.create(env.kafka.bootstrapServers(), KafkaProducerConfig.defaults());
    RecoveryLog log = new RecoveryLog(env.redis.shared(), env.keys, new SimpleMeterRegistry(), Time.SYSTEM);
    WriteBackAggregator aggregator = new WriteBackAggregator(env.core, producer,
        new WriteBackMetrics(new SimpleMeterRegistry()), id, log, new SkewedTime(Duration.ofMillis(offsetMs)));
    RedisHistoryWriter writer = new RedisHistoryWriter(env.core, env.redis, aggregator,
        new WriteMetrics(new SimpleMeterRegistry(), Time.SYSTEM));
    closeables.add(producer::close);
    closeables.add(aggregator::abandon);
    closeables.add(writer);
    return new Node(writer, aggregator, offsetMs);
  }

  @Test
  void aFlushOfTheNodeAheadLeavesTheLogEntryOfALaterWriteByTheNodeBehind() throws Exception {
    Node ahead = node("ahead", SKEW_MS);
    Node behind = node("behind", -SKEW_MS);
    ahead.write(record(UID, Business.VIDEO, 1, 1_000, env.base + 1));
    Map<Integer, List<String>> aheadsEntry = env.logEntryIds();
    HistoryRecord later = behind.write(record(UID, Business.VIDEO, 1, 2_000, env.base + 2));
    Map<Integer, List<String>> both = env.logEntryIds();
    assertThat(aheadsEntry.values()).singleElement().satisfies(ids -> assertThat(ids).hasSize(1));
    assertThat(both.values().stream().mapToInt(List::size).sum()).isEqualTo(2);

    try (PlaylineJob job = env.newJob()) {
      job.start();
      ahead.aggregator().close(); // flushes its snapshot of the item
      // Persisted, marks cleared, then committed: the offset says the job is done with the flush.
      int partition = UserPartitions.of(UID, KafkaNamespace.PARTITIONS);
      await().atMost(Duration.ofSeconds(60)).until(() -> env.committed(partition) >= 1);
    }
    // Acked by Kafka: its own entry went (the delete is not waited for by the flush), the later one's stays.
    await().atMost(Duration.ofSeconds(10)).until(() -> env.logEntryIds().values().stream().mapToInt(List::size).sum() == 1);
    assertThat(env.logEntryIds().values().stream().flatMap(List::stream))
        .doesNotContainAnyElementsOf(aheadsEntry.values().iterator().next());

    // The node behind dies before its flush; the sweep finds its log entry (by Redis's clock) and persists it.
    behind.aggregator().abandon();
    ConfigSource sweepSettings = ConfigSource.empty().with(Map.of("recovery.age", "1s",
        "writeback.flush.interval", "1s", "hbase.table", env.config.table().getNameAsString(),
        "redis.key.prefix", env.core.redisKeyPrefix()));
    CoreConfig sweepCore = CoreConfig.from(sweepSettings);
    JobConfig sweepNow = JobConfig.from(sweepSettings, sweepCore);
    HBaseHistorySink sink = new HBaseHistorySink(env.hbase.connection(), sweepNow,
        new JobMetrics(env.registry, Time.SYSTEM), Time.SYSTEM);
    try (RecoverySweeper sweeper = new RecoverySweeper(sweepNow, sweepCore, env.redis, sink,
        new JobMetrics(env.registry, Time.SYSTEM), () -> true, Time.SYSTEM)) {
      AtomicInteger recovered = new AtomicInteger();
      await().atMost(Duration.ofSeconds(30)).until(() -> recovered.addAndGet(sweeper.sweep().recovered()) > 0);
      assertThat(recovered).hasValue(1);
    }
    assertThat(env.logEntryIds()).isEmpty();
    assertThat(env.stored(UID, Business.VIDEO, 1)).isEqualTo(later);
  }
}
