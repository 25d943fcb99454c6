package io.playline.job.consume;

import static io.playline.job.JobTestEnv.batch;
import static io.playline.job.JobTestEnv.partitionOf;
import static io.playline.job.JobTestEnv.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.core.store.RetriableStoreException;
import io.playline.job.JobTestEnv;
import io.playline.job.metrics.JobMetrics;
import io.playline.job.sink.HBaseHistorySink;
import io.playline.job.sink.HistorySink;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryChange;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.time.Time;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class, RealHBaseExtension.class})
class HistoryConsumerLoopRetryTest {
  private static final long UID = 77;
  private JobTestEnv env;
  private FlakySink sink;
  private HistoryConsumerLoop loop;

  /** The real sink behind a switch that makes writes fail. */
  private static final class FlakySink implements HistorySink {
    final HistorySink delegate;
    final AtomicInteger attempts = new AtomicInteger();
    volatile RuntimeException failure;

    FlakySink(HistorySink delegate) {
      this.delegate = delegate;
    }

    @Override
    public void write(List<HistoryChange> changes) {
      attempts.incrementAndGet();
      RuntimeException f = failure;
      if (f != null) {
        throw f;
      }
      delegate.write(changes);
    }

    @Override
    public void prepare() {
      delegate.prepare();
    }

    @Override
    public void close() {}
  }

  @BeforeEach
  void setUp(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) {
    env = JobTestEnv.create(redis, kafka, hbase);
    JobMetrics metrics = new JobMetrics(env.registry, Time.SYSTEM);
    sink = new FlakySink(new HBaseHistorySink(hbase.connection(), env.config, metrics, Time.SYSTEM));
    loop = new HistoryConsumerLoop(env.config, env.core, kafka.bootstrapServers(), sink, env.redis, metrics,
        Time.SYSTEM);
    loop.start();
    await().atMost(Duration.ofSeconds(60)).until(loop::ready);
  }

  @AfterEach
  void tearDown() {
    loop.close();
    env.close();
  }

  private void produceOne() {
    env.produce(batch(env.base + 200, HistoryChange.newBuilder().setUid(UID)
        .addUpserts(record(UID, Business.VIDEO, 1, 1, env.base + 100)).build()));
  }

  @Test
  void transientFailureRetriesTheSamePollAndCommitsOnlyAfterItIsPersisted() {
    sink.failure = new RetriableStoreException("HBase is down (test)");
    produceOne();

    await().atMost(Duration.ofSeconds(30)).until(() -> sink.attempts.get() >= 3);
    assertThat(loop.ready()).isFalse();
    assertThat(env.committed(partitionOf(UID))).isEqualTo(-1);
    assertThat(env.stored(UID, Business.VIDEO, 1)).isNull();
    // The lag shows the outage: the record is behind, and its age grows while the store is down.
    assertThat(gauge("playline.job.lag.records")).isEqualTo(1);
    double age = gauge("playline.job.lag.seconds");
    await().atMost(Duration.ofSeconds(30)).until(() -> gauge("playline.job.lag.seconds") >= age + 1);

    sink.failure = null;
    env.awaitCommitted(UID, 1);
    assertThat(env.stored(UID, Business.VIDEO, 1)).isNotNull();
    assertThat(env.counter("playline.job.retries")).isGreaterThanOrEqualTo(2);
    await().atMost(Duration.ofSeconds(10)).until(loop::ready);
    await().atMost(Duration.ofSeconds(10))
        .until(() -> gauge("playline.job.lag.records") == 0 && gauge("playline.job.lag.seconds") == 0);
  }

  private double gauge(String name) {
    return env.registry.get(name).gauge().value();
  }

  @Test
  void closeDuringRetriesAbandonsThePollUncommitted() {
    sink.failure = new RetriableStoreException("HBase is down (test)");
    produceOne();
    await().atMost(Duration.ofSeconds(30)).until(() -> sink.attempts.get() >= 2);

    long start = System.nanoTime();
    loop.close();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    assertThat(loop.ready()).isFalse();
    assertThat(env.committed(partitionOf(UID))).isEqualTo(-1);
  }

  @Test
  void permanentFailureStopsTheLoopWithoutCommitting() {
    sink.failure = new IllegalStateException("table dropped (test)");
    produceOne();

    await().atMost(Duration.ofSeconds(30)).until(loop::failed);
    assertThat(loop.ready()).isFalse();
    assertThat(env.committed(partitionOf(UID))).isEqualTo(-1);
    assertThat(env.counter("playline.job.failures.fatal")).isEqualTo(1);
  }
}
