package io.playline.testing;

import io.playline.embedded.EmbeddedKafka;
import io.playline.time.Time;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * One test's share of the test JVM's real Kafka: topics and consumer groups whose names no other
 * test uses.
 *
 * <p>Thread-safe. Each test gets its own instance from {@link RealKafkaExtension}.
 */
public final class KafkaNamespace {

  /** Partitions of every topic {@link #topic(String)} creates. */
  public static final int PARTITIONS = 4;

  private static final Pattern TOPIC_BASE = Pattern.compile("[a-zA-Z0-9._-]{1,200}");

  private final EmbeddedKafka server;
  private final Admin admin;
  private final String id;
  private final Map<String, String> topics = new ConcurrentHashMap<>();

  KafkaNamespace(EmbeddedKafka server, Admin admin, String id) {
    this.server = server;
    this.admin = admin;
    this.id = id;
  }

  /** Returns the shared server. */
  public EmbeddedKafka server() {
    return server;
  }

  /** Returns the server's {@code "127.0.0.1:PORT"}. */
  public String bootstrapServers() {
    return server.bootstrapServers();
  }

  /**
   * Returns this test's topic for {@code base}, {@code base + "-" + id}, creating it (4
   * partitions, replication factor 1) on the first call; later calls with the same base in the
   * same test return the same topic.
   */
  public String topic(String base) {
    if (!TOPIC_BASE.matcher(base).matches()) {
      throw new IllegalArgumentException("base: " + base + " (expected: 1-200 of [a-zA-Z0-9._-])");
    }
    return topics.computeIfAbsent(base, b -> create(b + "-" + id));
  }

  private String create(String topic) {
    try {
      admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1)))
          .all().get(30, TimeUnit.SECONDS);
      awaitLeaders(topic, Time.SYSTEM.nanoTime() + TimeUnit.SECONDS.toNanos(30));
      return topic;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while creating topic " + topic, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("Cannot create topic " + topic + " on " + bootstrapServers(), e);
    }
  }

  /**
   * Waits until the broker serves every partition of {@code topic}: the controller answers the
   * creation once it is committed, and a describe, produce or fetch sent before the broker applied
   * it fails with {@code UnknownTopicOrPartitionException} (seen on a fresh CI machine).
   */
  private void awaitLeaders(String topic, long deadlineNanos)
      throws InterruptedException, ExecutionException, TimeoutException {
    while (true) {
      try {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        if (d.partitions().size() == PARTITIONS && d.partitions().stream().allMatch(p -> p.leader() != null)) {
          return;
        }
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || Time.SYSTEM.nanoTime() - deadlineNanos > 0) {
          throw e;
        }
      }
      if (Time.SYSTEM.nanoTime() - deadlineNanos > 0) {
        throw new TimeoutException("topic " + topic + " has partitions without a leader after 30 s");
      }
      Thread.sleep(20); // polling the condition itself, a describe per try
    }
  }

  /** Returns new producer properties: this server, byte-array serializers, {@code acks=all}. */
  public Properties producerProperties() {
    Properties properties = new Properties();
    properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    properties.put(ProducerConfig.ACKS_CONFIG, "all");
    return properties;
  }

  /**
   * Returns new consumer properties: this server, byte-array deserializers, reading from the
   * earliest offset, in a consumer group unique to this test and {@code groupIdSuffix}.
   */
  public Properties consumerProperties(String groupIdSuffix) {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    properties.put(ConsumerConfig.GROUP_ID_CONFIG, "g-" + id + "-" + groupIdSuffix);
    properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return properties;
  }

  @Override
  public String toString() {
    return "KafkaNamespace{" + id + " on " + bootstrapServers() + "}";
  }
}
