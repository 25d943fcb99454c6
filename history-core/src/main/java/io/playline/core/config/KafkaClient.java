package io.playline.core.config;

import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.jspecify.annotations.Nullable;

/**
 * The kinds of Kafka client Playline creates, each with its config prefix, the properties the
 * Kafka client knows, Playline's own keys under that prefix, and the properties Playline sets for
 * correctness and so refuses to take from pass-through.
 *
 * <p>Refused properties and why:
 *
 * <ul>
 *   <li>all clients: {@code bootstrap.servers} has its own key, {@code kafka.bootstrap.servers}
 *       (which standalone replaces with its embedded Kafka's address).
 *   <li>producer: {@code key.serializer}/{@code value.serializer} (records are bytes Playline
 *       serializes); {@code enable.idempotence} and {@code acks} (idempotence with {@code acks=all}
 *       keeps one user's changes in order through retries and acknowledges only what every in-sync
 *       replica holds); {@code transactional.id} (the producer is not transactional: every send
 *       would fail); {@code partitioner.class} and {@code partitioner.ignore.keys} (records are
 *       keyed by uid so one user's changes stay on one partition, in order); {@code client.id},
 *       {@code linger.ms}, {@code batch.size}, {@code max.block.ms}, {@code request.timeout.ms},
 *       {@code delivery.timeout.ms}, {@code max.request.size}, which Playline's own keys set (one
 *       key per setting; see {@code KafkaProducerConfig}).
 *   <li>consumer (the job): the deserializers (bytes); {@code group.id} ({@code job.group.id});
 *       {@code enable.auto.commit} (the job commits a poll only after HBase holds it; auto-commit
 *       could lose records on a crash); {@code auto.offset.reset} ({@code earliest}: a new group
 *       must not skip changes nobody persisted yet); {@code isolation.level} (the producer is not
 *       transactional, so only the default reads what it wrote without extra latency); {@code
 *       max.poll.records} ({@code job.max.poll.records}); {@code partition.assignment.strategy}
 *       and {@code group.protocol} (the job's rebalance handling is built and tested on the classic
 *       protocol with the cooperative-sticky assignor).
 *   <li>admin: {@code bootstrap.controllers} (Playline's admin clients talk to the brokers).
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public enum KafkaClient {
  PRODUCER(KafkaSettings.PRODUCER, "producer", ProducerConfig.configNames(), ProducerConfig.configDef(),
      // The keys KafkaProducerConfig reads under kafka.producer.
      Set.of("linger", "batch.bytes", "max.block", "request.timeout", "delivery.timeout", "max.request.bytes"),
      Map.ofEntries(
          Map.entry(ProducerConfig.CLIENT_ID_CONFIG, "set by kafka.client.id"),
          Map.entry(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, "Playline's records are bytes it serializes itself"),
          Map.entry(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, "Playline's records are bytes it serializes itself"),
          Map.entry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, Why.IN_ORDER),
          Map.entry(ProducerConfig.ACKS_CONFIG, Why.IN_ORDER),
          Map.entry(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "Playline's producer is not transactional"),
          Map.entry(ProducerConfig.PARTITIONER_CLASS_CONFIG, Why.KEYED),
          Map.entry(ProducerConfig.PARTITIONER_IGNORE_KEYS_CONFIG, Why.KEYED),
          Map.entry(ProducerConfig.LINGER_MS_CONFIG, "set by kafka.producer.linger"),
          Map.entry(ProducerConfig.BATCH_SIZE_CONFIG, "set by kafka.producer.batch.bytes"),
          Map.entry(ProducerConfig.MAX_BLOCK_MS_CONFIG, "set by kafka.producer.max.block"),
          Map.entry(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "set by kafka.producer.request.timeout"),
          Map.entry(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "set by kafka.producer.delivery.timeout"),
          Map.entry(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, "set by kafka.producer.max.request.bytes"))),
  CONSUMER(KafkaSettings.CONSUMER, "consumer", ConsumerConfig.configNames(), ConsumerConfig.configDef(), Set.of(),
      Map.of(
          ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, "Playline's records are bytes it parses itself",
          ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, "Playline's records are bytes it parses itself",
          ConsumerConfig.GROUP_ID_CONFIG, "set by job.group.id",
          ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "the job commits a poll only after HBase holds it",
          ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "a new group must read from the start, or unpersisted changes are lost",
          ConsumerConfig.ISOLATION_LEVEL_CONFIG, "Playline's producer is not transactional",
          ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "set by job.max.poll.records",
          ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, Why.REBALANCE,
          ConsumerConfig.GROUP_PROTOCOL_CONFIG, Why.REBALANCE)),
  ADMIN(KafkaSettings.ADMIN, "admin", AdminClientConfig.configNames(), AdminClientConfig.configDef(), Set.of("timeout"),
      Map.of(AdminClientConfig.BOOTSTRAP_CONTROLLERS_CONFIG, "Playline's admin clients talk to the brokers"));

  /** Refused for every client. */
  static final Map<String, String> REFUSED_EVERYWHERE =
      Map.of("bootstrap.servers", "set by kafka.bootstrap.servers");


  private final Setting<Map<String, String>> passThrough;
  private final String displayName;
  private final Set<String> kafkaNames;
  private final ConfigDef kafkaDef;
  private final Set<String> playlineKeys;
  private final Map<String, String> refused;

  KafkaClient(Setting<Map<String, String>> passThrough, String displayName, Set<String> kafkaNames, ConfigDef kafkaDef,
      Set<String> playlineKeys, Map<String, String> refused) {
    this.passThrough = passThrough;
    this.displayName = displayName;
    this.kafkaNames = Set.copyOf(kafkaNames);
    this.kafkaDef = kafkaDef;
    this.playlineKeys = playlineKeys;
    this.refused = refused;
  }

  /** The config prefix of this client's pass-through, e.g. {@code kafka.producer.}. */
  public String prefix() {
    return passThrough.key();
  }

  /** The definition of this client's pass-through: every key under {@link #prefix()}. */
  Setting<Map<String, String>> passThrough() {
    return passThrough;
  }

  /** True when the Kafka client of this kind has a property called {@code name}. */
  public boolean knows(String name) {
    return kafkaNames.contains(name);
  }

  /** True when {@code prefix() + suffix} is one of Playline's own keys, not a pass-through. */
  boolean isPlaylineKey(String suffix) {
    return playlineKeys.contains(suffix);
  }

  /** Why pass-through may not set {@code name} for this client; null when it may. */
  @Nullable String refusal(String name) {
    String everywhere = REFUSED_EVERYWHERE.get(name);
    return everywhere != null ? everywhere : refused.get(name);
  }

  /** Kafka's definition of this client's properties, to check a pass-through value's type early. */
  ConfigDef kafkaDef() {
    return kafkaDef;
  }

  @Override
  public String toString() {
    return displayName;
  }

  /** Reasons shared by several refusals (a nested class: enum constants cannot read the enum's own constants). */
  private static final class Why {
    static final String IN_ORDER = "idempotence with acks=all keeps each user's changes in order and durable";
    static final String KEYED = "records are keyed by uid so each user's changes stay in order on one partition";
    static final String REBALANCE = "the job's rebalancing is built on the classic cooperative-sticky assignor";
  }
}
