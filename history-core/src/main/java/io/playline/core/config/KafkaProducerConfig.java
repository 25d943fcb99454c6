package io.playline.core.config;

import java.time.Duration;

/**
 * The process's one Kafka producer's configuration; immutable, validated on construction. Every
 * field names its config key, whose default and range are in docs/configuration.md.
 *
 * @param clientId producer client id, seen in broker logs and quotas ({@code kafka.client.id})
 * @param linger how long the producer waits to fill a batch ({@code kafka.producer.linger})
 * @param batchBytes largest producer batch per partition ({@code kafka.producer.batch.bytes})
 * @param maxBlock longest {@code send}/{@code partitionsFor} block on metadata or a full buffer
 *     ({@code kafka.producer.max.block})
 * @param requestTimeout how long one produce request may wait for the broker ({@code kafka.producer.request.timeout})
 * @param deliveryTimeout how long a record may take from {@code send} to its ack, retries included
 *     ({@code kafka.producer.delivery.timeout}); at least linger + request timeout
 * @param maxRequestBytes largest produce request ({@code kafka.producer.max.request.bytes});
 *     must exceed writeback.max.record.bytes
 */
public record KafkaProducerConfig(
    String clientId,
    Duration linger,
    int batchBytes,
    Duration maxBlock,
    Duration requestTimeout,
    Duration deliveryTimeout,
    int maxRequestBytes) {

  public KafkaProducerConfig {
    if (clientId.isBlank()) {
      throw new ConfigException("kafka.client.id: '" + clientId + "' (expected: not blank)");
    }
    if (deliveryTimeout.compareTo(linger.plus(requestTimeout)) < 0) {
      throw new ConfigException("kafka.producer.delivery.timeout: " + deliveryTimeout
          + " (expected: >= kafka.producer.linger + kafka.producer.request.timeout = " + linger.plus(requestTimeout) + ")");
    }
  }

  /** Reads the settings from {@code c}, validating each range. */
  public static KafkaProducerConfig from(ConfigSource c) {
    return new KafkaProducerConfig(
        KafkaSettings.CLIENT_ID.read(c),
        KafkaSettings.PRODUCER_LINGER.read(c),
        KafkaSettings.PRODUCER_BATCH_BYTES.read(c),
        KafkaSettings.PRODUCER_MAX_BLOCK.read(c),
        KafkaSettings.PRODUCER_REQUEST_TIMEOUT.read(c),
        KafkaSettings.PRODUCER_DELIVERY_TIMEOUT.read(c),
        KafkaSettings.PRODUCER_MAX_REQUEST_BYTES.read(c));
  }

  /** Defaults, for tests and tools. */
  public static KafkaProducerConfig defaults() {
    return from(ConfigSource.empty());
  }
}
