package io.playline.core.query;

import static io.playline.core.query.QueryTestEnv.item;
import static io.playline.core.query.QueryTestEnv.join;
import static io.playline.core.query.QueryTestEnv.record;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.InvalidProtocolBufferException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.aggregate.WriteBackAggregator;
import io.playline.core.aggregate.WriteBackMetrics;
import io.playline.core.config.KafkaProducerConfig;
import io.playline.core.publish.KafkaProducers;
import io.playline.core.publish.TopicReader;
import io.playline.core.store.RedisKeys;
import io.playline.core.store.RetriableStoreException;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryChangeBatch;
import io.playline.proto.v1.HistoryClear;
import io.playline.proto.v1.ItemDelete;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Deletes and clears reach the write-back topic, in the user's partition, at the Redis tombstone time. */
@ExtendWith({RealRedisExtension.class, RealHBaseExtension.class, RealKafkaExtension.class})
class WriteBackControlTest {
  private static final long UID = 5005;
  private QueryTestEnv env;
  private KafkaProducer<byte[], byte[]> producer;
  private WriteBackAggregator aggregator;
  private TieredHistoryService service;
  private TopicReader reader;

  @BeforeEach
  void setUp(RedisNamespace redis, HBaseNamespace hbase, KafkaNamespace kafka) {
    String topic = kafka.topic("history");
    env = new QueryTestEnv(redis, hbase, Map.of("kafka.topic.history", topic, "writeback.flush.interval", "1s"));
    producer = KafkaProducers.create(kafka.bootstrapServers(), KafkaProducerConfig.defaults());
    aggregator = new WriteBackAggregator(env.config, producer, new WriteBackMetrics(new SimpleMeterRegistry()), "t");
    service = new TieredHistoryService(env.config, env.redis, env.hbaseClient, TombstoneSink.of(aggregator),
        env.registry, Time.SYSTEM);
    reader = new TopicReader(kafka, topic);
  }

  @AfterEach
  void tearDown() {
    reader.close();
    aggregator.abandon();
    producer.close(Duration.ofSeconds(5));
    env.close();
  }

  @Test
  void deleteAndClearFlowThroughTheWriteBackAtTheirTombstoneTimes() {
    long before = env.now - 1000;
    env.heartbeat(record(UID, Business.VIDEO, 1, 1, before), record(UID, Business.COMIC, 2, 1, before));

    join(service.delete(UID, List.of(item(Business.VIDEO, 1))));
    join(service.clear(UID, List.of(Business.COMIC), false));

    List<HistoryChange> changes = new ArrayList<>();
    reader.readUntil(records -> {
      changes.clear();
      records.forEach(r -> changes.addAll(changesOf(r)));
      return changes.stream().mapToInt(c -> c.getDeletesCount() + c.getClearsCount()).sum() >= 2;
    });
    List<ItemDelete> deletes = changes.stream().flatMap(c -> c.getDeletesList().stream()).toList();
    List<HistoryClear> clears = changes.stream().flatMap(c -> c.getClearsList().stream()).toList();
    assertThat(changes).allSatisfy(c -> assertThat(c.getUid()).isEqualTo(UID));
    assertThat(deletes).singleElement().satisfies(d -> {
      assertThat(d.getItem()).isEqualTo(item(Business.VIDEO, 1));
      assertThat(d.getDeleteTimeMs()).isEqualTo(tombstone("1:1"));
    });
    assertThat(clears).singleElement().satisfies(c -> {
      assertThat(c.getBusinessesList()).containsExactly(Business.COMIC);
      assertThat(c.getClearTimeMs()).isEqualTo(tombstone("b3"));
    });
    // Each call's own recovery mark rides along, for the job to remove once persisted; it is in
    // Redis until then, so a crash before the flush still leaves the sweep a way to HBase.
    List<byte[]> marks = changes.stream().flatMap(c -> c.getControlMarksList().stream())
        .map(m -> m.toByteArray()).toList();
    assertThat(marks).hasSize(2).allSatisfy(m -> {
      assertThat(new String(m)).startsWith(UID + ":~");
      assertThat(markScore(m)).isNotNull();
    });
  }

  @Test
  void aClosedWriteBackFailsTheDeleteAsRetriableButItsMarkStaysForTheSweep() {
    aggregator.close();
    Throwable failure = QueryTestEnv.failure(service.delete(UID, List.of(item(Business.VIDEO, 1))));
    assertThat(failure).isInstanceOf(RetriableStoreException.class)
        .hasMessageContaining("is applied in Redis and the job's recovery sweep persists it");
    assertThat(env.counter("playline.query.requests", "kind", "delete", "outcome", "unavailable")).isEqualTo(1);
    assertThat(tombstone("1:1")).isPositive();
    List<byte[]> marks = join(env.redis.shared().zrange(env.keys.recovery(shard()), 0, -1));
    assertThat(marks).extracting(String::new).singleElement().asString().startsWith(UID + ":~");
  }

  private int shard() {
    return RedisKeys.recoveryShard(UID, env.config.recoveryShards());
  }

  private @Nullable Double markScore(byte[] member) {
    return join(env.redis.shared().zscore(env.keys.recovery(shard()), member));
  }

  private long tombstone(String field) {
    byte[] value = join(env.redis.shared().hget(env.keys.tombstones(UID), field.getBytes()));
    return Long.parseLong(new String(value));
  }

  private static List<HistoryChange> changesOf(ConsumerRecord<byte[], byte[]> record) {
    try {
      return HistoryChangeBatch.parseFrom(record.value()).getChangesList();
    } catch (InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }
}
