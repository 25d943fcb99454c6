package io.playline.core.publish;

import static io.playline.core.publish.FirstTodayFixture.ISO_DAY;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.config.KafkaProducerConfig;
import io.playline.core.store.RedisConnections;
import io.playline.core.write.UserWrite;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.FirstTodayEvent;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * First-today events are delivered at least once: the check that counts a user leaves the event in
 * a Redis outbox, the node sends it and removes it on Kafka's ack, and a sweep sends whatever a
 * dead node, a failed send or a full queue left there.
 */
@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class})
class FirstTodayPublisherTest {
  /** Sweeps often, and takes over events after a second. */
  private static final Map<String, String> FAST_SWEEP =
      Map.of("first.today.outbox.age", "1s", "first.today.outbox.sweep.interval", "200ms");
  /** Never resends within a test: what arrives was sent by the node that counted it. */
  private static final Map<String, String> NO_SWEEP = Map.of("first.today.outbox.age", "1h");

  private KafkaNamespace kafka;
  private RedisNamespace ns;
  private String topic;
  private RedisConnections redis;
  private KafkaProducer<byte[], byte[]> producer;
  private FirstTodayFixture f;
  private final FirstTodayMetrics metrics = new FirstTodayMetrics(new SimpleMeterRegistry());

  @BeforeEach
  void setUp(RedisNamespace ns, KafkaNamespace kafka) {
    this.ns = ns;
    this.kafka = kafka;
    this.topic = kafka.topic("first-today");
    this.redis = RedisConnections.connect(ns.redisUri(), false, Duration.ofSeconds(5));
    this.producer = KafkaProducers.create(kafka.bootstrapServers(), KafkaProducerConfig.defaults());
  }

  @AfterEach
  void tearDown() {
    if (f != null) {
      f.close();
    }
    producer.close(Duration.ofSeconds(5));
    redis.close();
  }

  private FirstTodayFixture fixture(Map<String, String> settings) {
    f = new FirstTodayFixture(redis, ns.keyPrefix(), topic, settings);
    return f;
  }

  @Test
  void eventReachesKafkaOncePerUserAndDayKeyedByUidAndLeavesTheOutbox() throws Exception {
    fixture(NO_SWEEP);
    try (FirstTodayPublisher publisher = f.publisher(producer, metrics); TopicReader reader = new TopicReader(kafka, topic)) {
      assertThat(f.countAndPublish(42, "phone", publisher)).isTrue();
      assertThat(f.countAndPublish(42, "tv", publisher)).isFalse();
      assertThat(f.countAndPublish(7_000_000_001L, "web", publisher)).isTrue();
      assertThat(f.countAndPublish(42, "phone", publisher)).isFalse();

      await().atMost(Duration.ofSeconds(20)).until(() -> metrics.published() == 2);
      List<ConsumerRecord<byte[], byte[]>> records = reader.readUpToSentinels();
      assertThat(records).hasSize(2);
      for (ConsumerRecord<byte[], byte[]> r : records) {
        assertThat(new String(r.key(), US_ASCII)).isEqualTo(Long.toString(parse(r.value()).getUid()));
      }
      assertThat(records.stream().map(r -> parse(r.value())).toList()).containsExactlyInAnyOrder(
          FirstTodayEvent.newBuilder().setUid(42).setDay(ISO_DAY).setDeviceId("phone").setPlatform("tv")
              .setTimeMs(f.now).build(),
          FirstTodayEvent.newBuilder().setUid(7_000_000_001L).setDay(ISO_DAY).setDeviceId("web").setPlatform("tv")
              .setTimeMs(f.now).build());
      // Removed on the ack: no sweep will send them again.
      await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> f.outboxSize() == 0);
    }
  }

  /**
   * The thread waits for an event or its next sweep, not on a short period: a close must wake it.
   * With sweeps an hour apart and a close timeout of two minutes, a close that did not wake the
   * thread would take the whole timeout; this one returns at once, the event it queued sent.
   */
  @Test
  void closeWakesTheWaitingThreadAndSendsWhatIsQueued() throws Exception {
    fixture(Map.of("first.today.outbox.age", "1h", "first.today.outbox.sweep.interval", "1h",
        "writeback.close.timeout", "2m"));
    try (TopicReader reader = new TopicReader(kafka, topic)) {
      FirstTodayPublisher publisher = f.publisher(producer, metrics);
      // The first sweep runs at start; once it did, the thread waits for the next one, an hour on.
      await().atMost(Duration.ofSeconds(20)).until(() -> metrics.sweeps() >= 1);
      assertThat(f.countAndPublish(77, "phone", publisher)).isTrue();
      assertTimeoutPreemptively(Duration.ofSeconds(30), publisher::close);
      assertThat(metrics.deferred()).isZero();
      assertThat(reader.readAtLeast(1)).extracting(r -> parse(r.value()).getUid()).containsExactly(77L);
    }
  }

  @Test
  void eventOfANodeKilledBeforeSendingIsSentByAnotherNodesSweep() throws Exception {
    fixture(FAST_SWEEP);
    // The node counted the user in Redis and died before its publisher heard of it.
    assertThat(f.check(5, "phone", List.of()).firstToday()).containsExactly(true);
    assertThat(f.outboxSize()).isEqualTo(1);

    FirstTodayPublisher survivor = f.publisher(producer, metrics);
    try (survivor; TopicReader reader = new TopicReader(kafka, topic)) {
      List<ConsumerRecord<byte[], byte[]>> records = reader.readAtLeast(1);
      assertThat(parse(records.get(0).value()).getUid()).isEqualTo(5);
      await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> f.outboxSize() == 0);
      assertThat(metrics.swept()).isEqualTo(1);
      assertThat(reader.readUpToSentinels()).hasSize(1);
    }
  }

  @Test
  void eventSurvivesAFailureOfTheRestOfItsBatch() throws Exception {
    fixture(FAST_SWEEP);
    // The user's timeline is not a sorted set: write_history fails, so the whole batch fails.
    redis.shared().set(f.keys.timeline(6), "not a zset".getBytes(US_ASCII)).get(5, TimeUnit.SECONDS);
    HistoryRecord record = HistoryRecord.newBuilder().setUid(6).setBusiness(Business.VIDEO).setOid(1)
        .setProgressMs(1).setDurationMs(10).setViewTimeMs(f.now).build();
    assertThatThrownBy(() -> f.check(6, "phone", List.of(new UserWrite(6, List.of(record)))))
        .isInstanceOf(ExecutionException.class);
    // The day's bit is set all the same ...
    assertThat(f.check(6, "phone", List.of()).firstToday()).containsExactly(false);

    // ... and so is its event, which a sweep delivers although nobody was told of it.
    FirstTodayPublisher publisher = f.publisher(producer, metrics);
    try (publisher; TopicReader reader = new TopicReader(kafka, topic)) {
      assertThat(parse(reader.readAtLeast(1).get(0).value()).getUid()).isEqualTo(6);
      await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> f.outboxSize() == 0);
    }
  }

  @Test
  void kafkaOutageKeepsEventsInTheOutboxUntilKafkaReturns() throws Exception {
    fixture(FAST_SWEEP);
    FlakyProducer flaky = new FlakyProducer(producer);
    flaky.down(true);
    try (FirstTodayPublisher publisher = f.publisher(flaky, metrics); TopicReader reader = new TopicReader(kafka, topic)) {
      for (long uid = 11; uid <= 13; uid++) {
        assertThat(f.countAndPublish(uid, "phone", publisher)).isTrue();
      }
      // The node's sends fail, and so do the sweeps' retries after the age: nothing leaves the outbox.
      await().atMost(Duration.ofSeconds(20)).until(() -> metrics.failed() >= 6);
      assertThat(f.outboxSize()).isEqualTo(3);

      flaky.down(false);
      List<ConsumerRecord<byte[], byte[]>> records = reader.readAtLeast(3);
      assertThat(records.stream().map(r -> parse(r.value()).getUid()).distinct()).containsExactlyInAnyOrder(11L, 12L, 13L);
      await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> f.outboxSize() == 0);
    }
  }

  @Test
  void eventsAQueueCannotHoldWaitInTheOutboxAndAreNeverBlockedOn() throws Exception {
    fixture(Map.of("first.today.queue.capacity", "2", "first.today.outbox.age", "1s",
        "first.today.outbox.sweep.interval", "200ms"));
    FlakyProducer blocking = new FlakyProducer(producer);
    blocking.blockSends();
    try (FirstTodayPublisher publisher = f.publisher(blocking, metrics); TopicReader reader = new TopicReader(kafka, topic)) {
      assertThat(f.countAndPublish(100, "d", publisher)).isTrue();
      // The publisher thread is now stuck in send, as on a metadata wait: nothing drains the queue.
      await().atMost(Duration.ofSeconds(10)).until(() -> blocking.blockedSends() == 1);
      for (long uid = 101; uid < 110; uid++) {
        assertThat(f.check(uid, "d", List.of()).firstToday()).containsExactly(true);
      }
      boolean[] accepted = new boolean[9];
      assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
        for (int i = 0; i < accepted.length; i++) {
          accepted[i] = publisher.publish(101 + i, ISO_DAY, "d", "tv", f.now);
        }
      });
      assertThat(accepted).containsExactly(true, true, false, false, false, false, false, false, false);
      assertThat(metrics.deferred()).isEqualTo(7);

      blocking.unblockSends();
      List<ConsumerRecord<byte[], byte[]>> records = reader.readUntil(r -> r.stream()
          .map(c -> parse(c.value()).getUid()).distinct().count() == 10);
      assertThat(records.stream().map(r -> parse(r.value()).getUid()).distinct()).hasSize(10);
      await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> f.outboxSize() == 0);
    }
  }

  @Test
  void aFullOutboxStillCountsTheUserAndCountsTheEventItCannotKeep() throws Exception {
    fixture(Map.of("first.today.outbox.shards", "1", "first.today.outbox.capacity", "1",
        "first.today.outbox.age", "1h"));
    assertThat(f.check(21, "d", List.of()).firstToday()).containsExactly(true);
    assertThat(f.check(22, "d", List.of()).firstToday()).containsExactly(true);
    assertThat(f.check(22, "d", List.of()).firstToday()).containsExactly(false);

    assertThat(f.outboxSize()).isEqualTo(1);
    assertThat(f.registry.get("playline.first.today.outbox.full").counter().count()).isEqualTo(1);
  }

  @Test
  void rejectsANonPositiveUid() {
    fixture(NO_SWEEP);
    try (FirstTodayPublisher publisher = f.publisher(producer, metrics)) {
      assertThatThrownBy(() -> publisher.publish(0, ISO_DAY, "d", "p", 1L)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  static FirstTodayEvent parse(byte[] value) {
    try {
      return FirstTodayEvent.parseFrom(value);
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }
}
