package io.playline.core.publish;

import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Builds the one {@link KafkaProducer} a Playline process shares between the write-back and the
 * first-today topic: idempotent, {@code acks=all}, lz4, lingering briefly to fill large batches
 * (see BACKENDS.md: 3x the throughput of the defaults), every block and delivery bounded.
 *
 * <p>Stateless and thread-safe. The caller owns the producer and closes it after everything that
 * sends through it has closed.
 */
public final class KafkaProducers {
  private KafkaProducers() {}

  /** Creates the producer for {@code bootstrapServers}; thread-safe, as is the producer. */
  public static KafkaProducer<byte[], byte[]> create(String bootstrapServers, KafkaProducerSettings settings) {
    return new KafkaProducer<>(properties(bootstrapServers, settings));
  }

  /** The producer properties {@link #create} uses; visible so tests and tools can inspect or extend them. */
  public static Properties properties(String bootstrapServers, KafkaProducerSettings settings) {
    if (bootstrapServers.isBlank()) {
      throw new IllegalArgumentException("bootstrapServers: '" + bootstrapServers + "' (expected: host:port[,host:port])");
    }
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
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
    return p;
  }
}
