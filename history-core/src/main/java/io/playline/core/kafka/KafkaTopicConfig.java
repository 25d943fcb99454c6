package io.playline.core.kafka;

import io.playline.core.config.ConfigException;
import io.playline.core.config.ConfigSource;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The topics Playline's roles create or check at start-up, and how long they wait for Kafka's
 * admin API. Immutable; validated on construction.
 *
 * <p>The history (write-back) topic is keyed by uid and its consumers rely on one user's changes
 * staying in order, so it is {@linkplain KafkaTopic#keyOrdered() key-ordered}: an existing topic
 * with another partition count is refused. The first-today topic carries independent daily flags:
 * a different partition count is only logged.
 *
 * @param history the write-back topic ({@code kafka.topic.history}, playline.history.v1), with
 *     {@code kafka.topic.history.partitions} partitions (default {@code kafka.topic.partitions}, 12)
 * @param firstToday the first-today topic ({@code kafka.topic.first.today}, playline.first-today.v1),
 *     with {@code kafka.topic.first.today.partitions} partitions (default {@code kafka.topic.partitions})
 * @param adminTimeout bound of creating or checking the topics, from connecting to the brokers to
 *     the last answer ({@code kafka.admin.timeout}, 30s); both topics share the replication factor
 *     {@code kafka.topic.replication.factor} (default: the brokers' {@code default.replication.factor})
 */
public record KafkaTopicConfig(KafkaTopic history, KafkaTopic firstToday, Duration adminTimeout) {

  public static final String PARTITIONS_KEY = "kafka.topic.partitions";
  public static final String REPLICATION_FACTOR_KEY = "kafka.topic.replication.factor";
  public static final String ADMIN_TIMEOUT_KEY = "kafka.admin.timeout";
  static final int DEFAULT_PARTITIONS = 12;
  private static final int MAX_PARTITIONS = 10_000;

  public KafkaTopicConfig {
    if (adminTimeout.isNegative() || adminTimeout.isZero()) {
      throw new ConfigException(ADMIN_TIMEOUT_KEY + ": " + adminTimeout + " (expected: > 0)");
    }
  }

  /** Reads the topic settings from {@code c}, validating each range. */
  public static KafkaTopicConfig from(ConfigSource c) {
    int partitions = c.intValue(PARTITIONS_KEY, DEFAULT_PARTITIONS, 1, MAX_PARTITIONS);
    Optional<Short> rf = c.raw(REPLICATION_FACTOR_KEY).isEmpty() ? Optional.empty()
        : Optional.of((short) c.intValue(REPLICATION_FACTOR_KEY, 1, 1, Short.MAX_VALUE));
    return new KafkaTopicConfig(
        topic(c, "kafka.topic.history", "playline.history.v1", partitions, rf, true),
        topic(c, "kafka.topic.first.today", "playline.first-today.v1", partitions, rf, false),
        c.duration(ADMIN_TIMEOUT_KEY, Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofMinutes(10)));
  }

  private static KafkaTopic topic(ConfigSource c, String nameKey, String defaultName, int partitions,
      Optional<Short> rf, boolean keyOrdered) {
    String partitionsKey = nameKey + ".partitions";
    return new KafkaTopic(c.string(nameKey, defaultName), c.intValue(partitionsKey, partitions, 1, MAX_PARTITIONS),
        partitionsKey, rf, keyOrdered);
  }

  /** Both topics: what a process that produces to them ensures before it sends. */
  public List<KafkaTopic> all() {
    return List.of(history, firstToday);
  }
}
