package io.playline.core.config;

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
 * @param history the write-back topic ({@code kafka.topic.history}), with
 *     {@code kafka.topic.history.partitions} partitions (default {@code kafka.topic.partitions})
 * @param firstToday the first-today topic ({@code kafka.topic.first.today}),
 *     with {@code kafka.topic.first.today.partitions} partitions (default {@code kafka.topic.partitions})
 * @param adminTimeout bound of creating or checking the topics, from connecting to the brokers to
 *     the last answer ({@code kafka.admin.timeout}); both topics share the replication factor
 *     {@code kafka.topic.replication.factor} (default: the brokers' {@code default.replication.factor})
 */
public record KafkaTopicConfig(KafkaTopic history, KafkaTopic firstToday, Duration adminTimeout) {

  public static final String REPLICATION_FACTOR_KEY = KafkaSettings.TOPIC_REPLICATION_FACTOR.key();
  public static final String ADMIN_TIMEOUT_KEY = KafkaSettings.ADMIN_TIMEOUT.key();

  public KafkaTopicConfig {
    KafkaSettings.ADMIN_TIMEOUT.check(adminTimeout);
  }

  /** Reads the topic settings from {@code c}, validating each range. */
  public static KafkaTopicConfig from(ConfigSource c) {
    int partitions = KafkaSettings.TOPIC_PARTITIONS.read(c);
    Optional<Short> rf = KafkaSettings.TOPIC_REPLICATION_FACTOR.readIfSet(c).map(Integer::shortValue);
    return new KafkaTopicConfig(
        topic(c, KafkaSettings.TOPIC_HISTORY, KafkaSettings.TOPIC_HISTORY_PARTITIONS, partitions, rf, true),
        topic(c, KafkaSettings.TOPIC_FIRST_TODAY, KafkaSettings.TOPIC_FIRST_TODAY_PARTITIONS, partitions, rf, false),
        KafkaSettings.ADMIN_TIMEOUT.read(c));
  }

  private static KafkaTopic topic(ConfigSource c, Setting<String> name, Setting<Integer> partitionsSetting,
      int partitions, Optional<Short> rf, boolean keyOrdered) {
    return new KafkaTopic(name.read(c), partitionsSetting.read(c, partitions), partitionsSetting, rf, keyOrdered);
  }

  /** Both topics: what a process that produces to them ensures before it sends. */
  public List<KafkaTopic> all() {
    return List.of(history, firstToday);
  }
}
