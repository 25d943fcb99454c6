package io.playline.core.aggregate;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.config.KafkaProducerConfig;
import io.playline.core.publish.KafkaProducers;
import io.playline.core.publish.TopicReader;
import io.playline.core.write.AppliedRecord;
import io.playline.core.write.RecoveryEntry;
import io.playline.core.write.WriteBackSink;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.KafkaNamespace;
import io.playline.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;

/** One test's write-back setup: a fresh history topic, a real producer, meters; closes them all. */
final class WriteBackFixture implements AutoCloseable {
  final KafkaNamespace kafka;
  final String topic;
  final KafkaProducer<byte[], byte[]> producer;
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final WriteBackMetrics metrics = new WriteBackMetrics(registry);
  /** The recovery-log entries the aggregators said Kafka acknowledged, in order. */
  final List<RecoveryEntry> trimmed = new CopyOnWriteArrayList<>();
  private final List<WriteBackAggregator> aggregators = new ArrayList<>();
  private final List<TopicReader> readers = new ArrayList<>();

  WriteBackFixture(KafkaNamespace kafka) {
    this.kafka = kafka;
    this.topic = kafka.topic("history");
    this.producer = KafkaProducers.create(kafka.bootstrapServers(), KafkaProducerConfig.defaults());
  }

  CoreConfig config(Map<String, String> overrides) {
    Map<String, String> all = new HashMap<>(overrides);
    all.put("kafka.topic.history", topic);
    return CoreConfig.from(ConfigSource.empty().with(all));
  }

  WriteBackAggregator aggregator(Map<String, String> overrides) {
    return aggregator(producer, overrides);
  }

  WriteBackAggregator aggregator(Producer<byte[], byte[]> through, Map<String, String> overrides) {
    return aggregator(through, overrides, Time.SYSTEM);
  }

  WriteBackAggregator aggregator(Producer<byte[], byte[]> through, Map<String, String> overrides, Time time) {
    WriteBackAggregator a = new WriteBackAggregator(config(overrides), through, metrics, "test-node", trimmed::addAll,
        time);
    aggregators.add(a);
    return a;
  }

  TopicReader reader() {
    TopicReader r = new TopicReader(kafka, topic);
    readers.add(r);
    return r;
  }

  /** One write-through batch that applied {@code records}, listed by the recovery-log entry {@link #entry}. */
  static void write(WriteBackSink sink, long entryMs, HistoryRecord... records) {
    sink.batchStarted();
    sink.batchFinished(Arrays.stream(records).map(r -> new AppliedRecord(r, entry(entryMs))).toList());
  }

  /** The recovery-log entry of shard 0 whose id is {@code <entryMs>-0}. */
  static RecoveryEntry entry(long entryMs) {
    return new RecoveryEntry(0, entryMs + "-0");
  }

  @Override
  public void close() {
    aggregators.forEach(WriteBackAggregator::abandon);
    readers.forEach(TopicReader::close);
    producer.close(Duration.ofSeconds(5));
  }
}
