package io.playline.core.config;

import static io.playline.core.config.Setting.derived;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** history-core's Kafka keys: the producer, the topics, and the client properties passed through to Kafka. */
public final class KafkaSettings {
  private static final int MAX_PARTITIONS = 10_000;

  public static final Setting<String> CLIENT_ID = Setting.string("kafka.client.id", "playline",
      "the producers' client id, seen in broker logs and quotas");
  public static final Setting<Duration> PRODUCER_LINGER = Setting.duration("kafka.producer.linger",
      Duration.ofMillis(10), Duration.ZERO, Duration.ofSeconds(5), "how long the producer waits to fill a batch");
  public static final Setting<Integer> PRODUCER_BATCH_BYTES = Setting.bytes("kafka.producer.batch.bytes", 256 * 1024,
      1024, 16 * 1024 * 1024, "largest producer batch per partition");
  public static final Setting<Duration> PRODUCER_MAX_BLOCK = Setting.duration("kafka.producer.max.block",
      Duration.ofSeconds(5), Duration.ofMillis(100), Duration.ofMinutes(5), "how long a send waits for metadata or "
          + "buffer space before failing (the write-back retries; a first-today event stays in its outbox)");
  public static final Setting<Duration> PRODUCER_REQUEST_TIMEOUT = Setting.duration("kafka.producer.request.timeout",
      Duration.ofSeconds(15), Duration.ofSeconds(1), Duration.ofMinutes(5), "one produce request");
  public static final Setting<Duration> PRODUCER_DELIVERY_TIMEOUT = Setting.duration("kafka.producer.delivery.timeout",
      Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofMinutes(30),
      "a record's whole delivery, retries included").rangeNote("≥ `kafka.producer.linger` + `kafka.producer.request.timeout`");
  public static final Setting<Integer> PRODUCER_MAX_REQUEST_BYTES = Setting.bytes("kafka.producer.max.request.bytes",
      1024 * 1024, 16 * 1024, 64 * 1024 * 1024, "largest produce request");
  public static final Setting<String> TOPIC_HISTORY = Setting.string("kafka.topic.history", "playline.history.v1",
      "the write-back topic");
  public static final Setting<String> TOPIC_FIRST_TODAY = Setting.string("kafka.topic.first.today",
      "playline.first-today.v1", "the first-today topic");
  public static final Setting<Integer> TOPIC_PARTITIONS = Setting.intValue("kafka.topic.partitions", 12, 1,
      MAX_PARTITIONS, "partitions a missing topic is created with. A history topic with another partition count is "
          + "refused at start-up (a change would reorder one user's changes): stop the gateways, let the jobs drain "
          + "the topic, then change the topic and the key together");
  public static final Setting<Integer> TOPIC_HISTORY_PARTITIONS = Setting.intValue("kafka.topic.history.partitions",
      derived("`kafka.topic.partitions`"), 1, MAX_PARTITIONS, "partitions of the write-back topic");
  public static final Setting<Integer> TOPIC_FIRST_TODAY_PARTITIONS = Setting.intValue(
      "kafka.topic.first.today.partitions", derived("`kafka.topic.partitions`"), 1, MAX_PARTITIONS,
      "partitions of the first-today topic (another count on an existing topic is only logged)");
  public static final Setting<Integer> TOPIC_REPLICATION_FACTOR = Setting.intValue("kafka.topic.replication.factor",
      derived("the brokers' `default.replication.factor`"), 1, Short.MAX_VALUE,
      "replicas of created topics; an existing topic with fewer only warns");
  public static final Setting<Duration> ADMIN_TIMEOUT = Setting.duration("kafka.admin.timeout", Duration.ofSeconds(30),
      Duration.ofSeconds(1), Duration.ofMinutes(10), "bound of creating or checking the topics at start-up");
  public static final Setting<Map<String, String>> COMMON = Setting.prefix("kafka.common.",
      "any Kafka client property (SASL/TLS, timeouts) for every client that knows it, validated against the "
          + "clients' own config names: a typo, or a property Playline sets for correctness (`acks`, "
          + "`enable.idempotence`, serializers, `group.id`, `enable.auto.commit`, `isolation.level`, …), is refused "
          + "naming the key");
  public static final Setting<Map<String, String>> PRODUCER = Setting.prefix("kafka.producer.",
      "a producer property, over `kafka.common.`; Playline's own keys (`kafka.producer.linger` …) keep their meaning");
  public static final Setting<Map<String, String>> CONSUMER = Setting.prefix("kafka.consumer.",
      "a property of the job's consumer, over `kafka.common.`");
  public static final Setting<Map<String, String>> ADMIN = Setting.prefix("kafka.admin.",
      "an admin client property (topic set-up, health probes), over `kafka.common.`; `kafka.admin.timeout` keeps its "
          + "meaning");

  public static final SettingsCatalogue CATALOGUE = new SettingsCatalogue("Kafka", List.of(
      CLIENT_ID, PRODUCER_LINGER, PRODUCER_BATCH_BYTES, PRODUCER_MAX_BLOCK, PRODUCER_REQUEST_TIMEOUT,
      PRODUCER_DELIVERY_TIMEOUT, PRODUCER_MAX_REQUEST_BYTES, TOPIC_HISTORY, TOPIC_FIRST_TODAY, TOPIC_PARTITIONS,
      TOPIC_HISTORY_PARTITIONS, TOPIC_FIRST_TODAY_PARTITIONS, TOPIC_REPLICATION_FACTOR, ADMIN_TIMEOUT, COMMON, PRODUCER,
      CONSUMER, ADMIN));

  private KafkaSettings() {}
}
