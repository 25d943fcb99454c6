package io.playline.bench.jmh;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.aggregate.WriteBackAggregator;
import io.playline.core.aggregate.WriteBackMetrics;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.write.AppliedRecord;
import io.playline.core.write.RecoveryEntry;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.time.Time;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.MockProducer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The write-back merge path without Kafka: what {@code RedisHistoryWriter} calls on every batch,
 * {@code batchStarted} then {@code batchFinished} with the applied records, which {@code
 * PendingBuffer} merges latest-wins into {@code PendingChanges} under its lock. Batches of {@value
 * #BATCH} records cycle over {@code users} users (one item each), below {@code writeback.max.pending},
 * with a one-hour flush interval, so no flush runs and the producer is a never-called {@link MockProducer}.
 * Single-threaded: the score is the writers' side of the lock, uncontended.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class WriteBackMergeBenchmark {
  static final int BATCH = 512;

  @Param({"10000", "100000"})
  public int users;

  private WriteBackAggregator aggregator = null;
  private final List<List<AppliedRecord>> batches = new ArrayList<>();
  private int next;

  @Setup(Level.Trial)
  public void setUp() {
    CoreConfig config = CoreConfig.from(ConfigSource.empty().with(Map.of(
        "writeback.flush.interval", "1h", "writeback.max.pending", Integer.toString(4 * users))));
    aggregator = new WriteBackAggregator(config, new MockProducer<>(), new WriteBackMetrics(new SimpleMeterRegistry()),
        "bench");
    long now = Time.SYSTEM.millis();
    for (int b = 0; b < users / BATCH + 1; b++) {
      List<AppliedRecord> batch = new ArrayList<>(BATCH);
      for (int i = 0; i < BATCH; i++) {
        long uid = 1 + (long) (b * BATCH + i) % users;
        batch.add(new AppliedRecord(HistoryRecord.newBuilder().setUid(uid).setBusiness(Business.VIDEO).setOid(uid * 7)
            .setProgressMs(60_000).setDurationMs(2_700_000).setViewTimeMs(now + b).setDeviceId("d")
            .setPlatform("bench").build(), new RecoveryEntry(b % 16, now + "-" + b)));
      }
      batches.add(batch);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    aggregator.abandon();
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void mergeBatch() {
    List<AppliedRecord> batch = batches.get(next);
    next = next + 1 == batches.size() ? 0 : next + 1;
    aggregator.batchStarted();
    aggregator.batchFinished(batch);
  }
}
