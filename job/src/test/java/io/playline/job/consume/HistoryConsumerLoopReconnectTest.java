package io.playline.job.consume;

import static io.playline.job.JobTestEnv.batch;
import static io.playline.job.JobTestEnv.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.job.JobTestEnv;
import io.playline.job.metrics.JobMetrics;
import io.playline.job.sink.HBaseHistorySink;
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
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A Kafka consumer that fails (as brokers restarting answer {@code UnsupportedVersionException}
 * for a moment: a 30-minute outage of the whole cluster stopped both jobs of the fault suite this
 * way) is replaced, and nothing is lost or left uncommitted.
 */
@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class, RealHBaseExtension.class})
class HistoryConsumerLoopReconnectTest {
  private static final long UID = 78;
  private final AtomicInteger failingPolls = new AtomicInteger();
  private final AtomicInteger consumersOpened = new AtomicInteger();
  private JobTestEnv env;
  private HBaseHistorySink sink;
  private HistoryConsumerLoop loop;

  /** The real consumer, whose polls throw while {@code failingPolls} is positive. */
  private final class FailingConsumer extends KafkaConsumer<byte[], byte[]> {
    FailingConsumer(Map<String, Object> properties) {
      super(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    @Override
    public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
      if (failingPolls.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new UnsupportedVersionException("The node does not support METADATA (test)");
      }
      return super.poll(timeout);
    }
  }

  @BeforeEach
  void setUp(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) {
    env = JobTestEnv.create(redis, kafka, hbase);
    JobMetrics metrics = new JobMetrics(env.registry, Time.SYSTEM);
    sink = new HBaseHistorySink(hbase.connection(), env.config, metrics, Time.SYSTEM);
    loop = new HistoryConsumerLoop(env.config, env.core, kafka.bootstrapServers(), sink, env.redis, metrics,
        Time.SYSTEM, p -> {
      consumersOpened.incrementAndGet();
      return new FailingConsumer(p);
    });
    loop.start();
    await().atMost(Duration.ofSeconds(60)).until(loop::ready);
  }

  @AfterEach
  void tearDown() {
    loop.close();
    sink.close();
    env.close();
  }

  private void produce(int oid) {
    env.produce(batch(env.base + 200 + oid, HistoryChange.newBuilder().setUid(UID)
        .addUpserts(record(UID, Business.VIDEO, oid, oid, env.base + 100 + oid)).build()));
  }

  @Test
  void aFailingConsumerIsReplacedAndWhatItMissedIsPersistedAndCommitted() {
    produce(1);
    env.awaitCommitted(UID, 1);

    // Three polls in a row fail: each failing consumer is closed and a new one opened.
    failingPolls.set(3);
    await().atMost(Duration.ofSeconds(60)).until(() -> env.counter("playline.job.consumer.restarts") == 3.0);
    produce(2);
    env.awaitCommitted(UID, 2);

    assertThat(env.stored(UID, Business.VIDEO, 2)).isNotNull();
    assertThat(loop.failed()).isFalse();
    assertThat(env.counter("playline.job.consumer.restarts")).isEqualTo(3.0);
    assertThat(consumersOpened.get()).isEqualTo(4);
    assertThat(env.counter("playline.job.failures.fatal")).isZero();
    await().atMost(Duration.ofSeconds(10)).until(loop::ready);
  }
}
