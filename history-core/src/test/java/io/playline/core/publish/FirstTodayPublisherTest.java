package io.playline.core.publish;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.CoreConfig;
import io.playline.core.config.ConfigSource;
import io.playline.proto.v1.FirstTodayEvent;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealKafkaExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealKafkaExtension.class)
class FirstTodayPublisherTest {
  private KafkaNamespace kafka;
  private String topic;
  private KafkaProducer<byte[], byte[]> producer;
  private final FirstTodayMetrics metrics = new FirstTodayMetrics(new SimpleMeterRegistry());

  @BeforeEach
  void setUp(KafkaNamespace kafka) {
    this.kafka = kafka;
    this.topic = kafka.topic("first-today");
    this.producer = KafkaProducers.create(kafka.bootstrapServers(), KafkaProducerSettings.defaults());
  }

  @AfterEach
  void tearDown() {
    producer.close(Duration.ofSeconds(5));
  }

  private CoreConfig config(int queueCapacity) {
    return CoreConfig.from(ConfigSource.empty().with(Map.of(
        "kafka.topic.first.today", topic, "first.today.queue.capacity", Integer.toString(queueCapacity))));
  }

  @Test
  void firstTodayEventsArriveKeyedByUid() throws Exception {
    try (FirstTodayPublisher publisher = new FirstTodayPublisher(config(100), producer, metrics);
        TopicReader reader = new TopicReader(kafka, topic)) {
      publisher.publish(42, "2026-11-21", "tv-1", "tv", 1_000L);
      publisher.firstToday(7_000_000_001L, "2026-11-21", "", "web", 2_000L);

      List<ConsumerRecord<byte[], byte[]>> records = reader.readAtLeast(2);

      assertThat(records).hasSize(2);
      for (ConsumerRecord<byte[], byte[]> r : records) {
        FirstTodayEvent e = FirstTodayEvent.parseFrom(r.value());
        assertThat(new String(r.key(), US_ASCII)).isEqualTo(Long.toString(e.getUid()));
      }
      assertThat(records.stream().map(r -> parse(r.value())).toList()).containsExactlyInAnyOrder(
          FirstTodayEvent.newBuilder().setUid(42).setDay("2026-11-21").setDeviceId("tv-1").setPlatform("tv")
              .setTimeMs(1_000L).build(),
          FirstTodayEvent.newBuilder().setUid(7_000_000_001L).setDay("2026-11-21").setPlatform("web")
              .setTimeMs(2_000L).build());
      await().atMost(Duration.ofSeconds(10)).until(() -> metrics.published() == 2);
      assertThat(metrics.dropped()).isZero();
    }
  }

  @Test
  void publishReturnsImmediatelyWhenTheQueueIsFull() throws Exception {
    FlakyProducer blocking = new FlakyProducer(producer);
    blocking.blockSends();
    try (FirstTodayPublisher publisher = new FirstTodayPublisher(config(2), blocking, metrics);
        TopicReader reader = new TopicReader(kafka, topic)) {
      publisher.publish(1, "2026-11-21", "d", "p", 1L);
      // The publisher thread is now stuck in send, as on a metadata wait: nothing drains the queue.
      await().atMost(Duration.ofSeconds(10)).until(() -> blocking.blockedSends() == 1);

      boolean[] accepted = new boolean[50];
      assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
        for (int i = 0; i < accepted.length; i++) {
          accepted[i] = publisher.publish(100 + i, "2026-11-21", "d", "p", 1L);
        }
      });

      boolean[] expected = new boolean[50];
      expected[0] = true;
      expected[1] = true;
      assertThat(accepted).containsExactly(expected);
      assertThat(metrics.dropped()).isEqualTo(48);
      blocking.unblockSends();
      List<ConsumerRecord<byte[], byte[]>> records = reader.readAtLeast(3);
      assertThat(records.stream().map(r -> parse(r.value()).getUid())).containsExactlyInAnyOrder(1L, 100L, 101L);
    }
  }

  @Test
  void closeSendsWhatIsQueuedAndLaterEventsAreDropped() throws Exception {
    FirstTodayPublisher publisher = new FirstTodayPublisher(config(100), producer, metrics);
    for (int uid = 1; uid <= 20; uid++) {
      publisher.publish(uid, "2026-11-21", "d", "p", uid);
    }
    publisher.close();

    assertThat(publisher.publish(99, "2026-11-21", "d", "p", 1L)).isFalse();
    assertThat(metrics.dropped()).isEqualTo(1);
    try (TopicReader reader = new TopicReader(kafka, topic)) {
      assertThat(reader.readAtLeast(20)).hasSize(20);
    }
  }

  @Test
  void rejectsANonPositiveUid() {
    try (FirstTodayPublisher publisher = new FirstTodayPublisher(config(10), producer, metrics)) {
      assertThatThrownBy(() -> publisher.publish(0, "2026-11-21", "d", "p", 1L))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  private static FirstTodayEvent parse(byte[] value) {
    try {
      return FirstTodayEvent.parseFrom(value);
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }
}
