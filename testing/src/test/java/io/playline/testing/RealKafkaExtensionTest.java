package io.playline.testing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.embedded.EmbeddedKafka;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealKafkaExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealKafkaExtensionTest {

  /** The one server every test in this JVM must see, recorded by whichever test runs first. */
  private static final AtomicReference<EmbeddedKafka> SERVER = new AtomicReference<>();
  private static final Map<String, String> TOPIC_BY_TEST = new ConcurrentHashMap<>();
  private static final Map<String, String> GROUP_BY_TEST = new ConcurrentHashMap<>();

  private KafkaNamespace fromBeforeEach;

  @BeforeEach
  void rememberNamespace(KafkaNamespace namespace) {
    fromBeforeEach = namespace;
  }

  @Test
  @Order(1)
  void firstTestRoundTripsThroughItsOwnTopic(KafkaNamespace namespace) throws Exception {
    assertSharedServer(namespace);
    assertThat(namespace).isSameAs(fromBeforeEach);
    String topic = namespace.topic("events");
    TOPIC_BY_TEST.put("first", topic);
    GROUP_BY_TEST.put("first", groupId(namespace));
    assertThat(topic).startsWith("events-").isEqualTo(namespace.topic("events"));
    assertThat(describe(namespace, topic).partitions()).hasSize(KafkaNamespace.PARTITIONS);

    produce(namespace, topic, "first");
    assertThat(consumeValues(namespace, topic, 1)).containsExactly("first");
  }

  @Test
  @Order(2)
  void secondTestReadsOnlyItsOwnTopic(KafkaNamespace namespace) throws Exception {
    assertSharedServer(namespace);
    String topic = namespace.topic("events");
    TOPIC_BY_TEST.put("second", topic);
    GROUP_BY_TEST.put("second", groupId(namespace));
    assertThat(topic).isNotEqualTo(TOPIC_BY_TEST.get("first"));

    produce(namespace, topic, "second");
    // From the earliest offset, in a fresh group: the first test's record is not in this topic.
    assertThat(consumeValues(namespace, topic, 1)).containsExactly("second");
  }

  @AfterAll
  static void everyTestHadItsOwnTopicAndGroup() {
    assertThat(TOPIC_BY_TEST).containsOnlyKeys("first", "second");
    assertThat(TOPIC_BY_TEST.values()).doesNotHaveDuplicates();
    assertThat(GROUP_BY_TEST.values()).hasSize(2).doesNotHaveDuplicates();
  }

  /** Asserts that every test in this JVM, in any test class, gets the same server. */
  static void assertSharedServer(KafkaNamespace namespace) {
    SERVER.compareAndSet(null, namespace.server());
    assertThat(namespace.server()).isSameAs(SERVER.get());
    assertThat(namespace.bootstrapServers()).isEqualTo(namespace.server().bootstrapServers());
  }

  private static String groupId(KafkaNamespace namespace) {
    return namespace.consumerProperties("reader").getProperty(ConsumerConfig.GROUP_ID_CONFIG);
  }

  static TopicDescription describe(KafkaNamespace namespace, String topic) throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, namespace.bootstrapServers()))) {
      return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
    }
  }

  private static void produce(KafkaNamespace namespace, String topic, String value) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(namespace.producerProperties())) {
      producer.send(new ProducerRecord<>(topic, "player".getBytes(UTF_8), value.getBytes(UTF_8)))
          .get(30, TimeUnit.SECONDS);
    }
  }

  private static List<String> consumeValues(KafkaNamespace namespace, String topic, int expected) {
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(namespace.consumerProperties("reader"))) {
      consumer.subscribe(List.of(topic));
      await().atMost(Duration.ofSeconds(30)).pollInSameThread().until(() -> {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(new String(r.value(), UTF_8)));
        return values.size() >= expected;
      });
      // Anything else already in the topic arrives with or right after the expected records.
      consumer.poll(Duration.ofMillis(500)).forEach(r -> values.add(new String(r.value(), UTF_8)));
    }
    return values;
  }
}
