package io.playline.core.publish;

import io.playline.core.config.KafkaClient;
import io.playline.core.config.KafkaClientConfig;
import io.playline.core.config.KafkaProducerConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Builds the one {@link KafkaProducer} a Playline process shares between the write-back and the
 * first-today topic: idempotent, {@code acks=all}, lz4, lingering briefly to fill large batches
 * (about 3x the throughput of the client defaults on a write-back load), every block and delivery bounded; plus the
 * operator's pass-through ({@code kafka.common.*}, {@code kafka.producer.*}, see {@link
 * KafkaClientConfig}), which may override lz4 but nothing Playline relies on.
 *
 * <p>Stateless and thread-safe. The caller owns the producer and closes it after everything that
 * sends through it has closed.
 */
public final class KafkaProducers {
  private KafkaProducers() {}

  /** Creates the producer for {@code bootstrapServers} without pass-through; thread-safe, as is the producer. */
  public static KafkaProducer<byte[], byte[]> create(String bootstrapServers, KafkaProducerConfig settings) {
    return create(bootstrapServers, settings, KafkaClientConfig.none());
  }

  /** Creates the producer for {@code bootstrapServers} with {@code clients}' pass-through. */
  public static KafkaProducer<byte[], byte[]> create(String bootstrapServers, KafkaProducerConfig settings,
      KafkaClientConfig clients) {
    return new KafkaProducer<>(properties(bootstrapServers, settings, clients));
  }

  /** The producer properties without pass-through; visible so tests and tools can inspect or extend them. */
  public static Properties properties(String bootstrapServers, KafkaProducerConfig settings) {
    return properties(bootstrapServers, settings, KafkaClientConfig.none());
  }

  /** The producer properties {@link #create} uses: Playline's settings, then {@code clients}' pass-through. */
  public static Properties properties(String bootstrapServers, KafkaProducerConfig settings,
      KafkaClientConfig clients) {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.CLIENT_ID_CONFIG, settings.clientId());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    // Idempotence keeps per-partition order through retries; it requires acks=all and <= 5 in flight.
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    p.put(ProducerConfig.LINGER_MS_CONFIG, Long.toString(settings.linger().toMillis()));
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(settings.batchBytes()));
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(settings.maxBlock().toMillis()));
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(settings.requestTimeout().toMillis()));
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(settings.deliveryTimeout().toMillis()));
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(settings.maxRequestBytes()));
    Properties properties = new Properties();
    properties.putAll(clients.build(KafkaClient.PRODUCER, bootstrapServers, p));
    return properties;
  }
}
