package io.playline.core;

import io.micrometer.core.instrument.MeterRegistry;
import io.playline.core.aggregate.WriteBackAggregator;
import io.playline.core.aggregate.WriteBackMetrics;
import io.playline.core.config.ConfigSource;
import io.playline.core.publish.FirstTodayMetrics;
import io.playline.core.publish.FirstTodayPublisher;
import io.playline.core.publish.KafkaProducerSettings;
import io.playline.core.publish.KafkaProducers;
import io.playline.core.store.RedisConnections;
import io.playline.core.write.RedisHistoryWriter;
import io.playline.core.write.WriteMetrics;
import java.time.Duration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The history-core runtime of one process: the Redis client, the one Kafka producer, the
 * write-through writer, the write-back aggregator and the first-today publisher, wired together
 * and closed in dependency order (writer, then aggregator flush, then producer, then Redis).
 */
public final class HistoryCore implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HistoryCore.class);

  private final CoreConfig config;
  private final RedisConnections redis;
  private final KafkaProducer<byte[], byte[]> producer;
  private final WriteBackAggregator aggregator;
  private final FirstTodayPublisher firstToday;
  private final RedisHistoryWriter writer;

  private HistoryCore(CoreConfig config, RedisConnections redis, KafkaProducer<byte[], byte[]> producer,
      WriteBackAggregator aggregator, FirstTodayPublisher firstToday, RedisHistoryWriter writer) {
    this.config = config;
    this.redis = redis;
    this.producer = producer;
    this.aggregator = aggregator;
    this.firstToday = firstToday;
    this.writer = writer;
  }

  /**
   * Connects to Redis ({@code redis.cluster} selects Cluster mode, {@code redis.timeout} bounds
   * every command) and Kafka, and starts the write-back. Blocks while connecting: call at start-up.
   */
  public static HistoryCore start(ConfigSource source, String redisUri, String kafkaBootstrapServers, String nodeId,
      MeterRegistry registry) {
    CoreConfig config = CoreConfig.from(source);
    Duration timeout = source.duration("redis.timeout", Duration.ofSeconds(5), Duration.ofMillis(100), Duration.ofMinutes(1));
    RedisConnections redis = RedisConnections.connect(redisUri, source.bool("redis.cluster", false), timeout);
    KafkaProducer<byte[], byte[]> producer = null;
    WriteBackAggregator aggregator = null;
    try {
      producer = KafkaProducers.create(kafkaBootstrapServers, KafkaProducerSettings.from(source));
      aggregator = new WriteBackAggregator(config, producer, new WriteBackMetrics(registry), nodeId);
      FirstTodayPublisher firstToday = new FirstTodayPublisher(config, producer, new FirstTodayMetrics(registry));
      RedisHistoryWriter writer = new RedisHistoryWriter(config, redis, aggregator, new WriteMetrics(registry));
      log.info("history-core up: write-back every {} to {}, first-today to {}", config.flushInterval(),
          config.historyTopic(), config.firstTodayTopic());
      return new HistoryCore(config, redis, producer, aggregator, firstToday, writer);
    } catch (RuntimeException e) {
      if (aggregator != null) {
        aggregator.abandon();
      }
      if (producer != null) {
        producer.close(Duration.ofSeconds(2));
      }
      redis.close();
      throw e;
    }
  }

  public CoreConfig config() {
    return config;
  }

  public RedisConnections redis() {
    return redis;
  }

  /** The write-through; call it from one thread only (the heartbeat batcher's). */
  public RedisHistoryWriter writer() {
    return writer;
  }

  public WriteBackAggregator aggregator() {
    return aggregator;
  }

  public FirstTodayPublisher firstToday() {
    return firstToday;
  }

  /** Flushes the write-back and the first-today queue (bounded), then closes the clients. */
  @Override
  public void close() {
    writer.close();
    aggregator.close();
    firstToday.close();
    producer.close(Duration.ofSeconds(5));
    redis.close();
  }
}
