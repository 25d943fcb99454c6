package io.playline.core.config;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** A topic definition built in code is held to the ranges of the settings that configure it. */
class KafkaTopicConfigTest {
  private static void refused(String key, ThrowingCallable build) {
    assertThatThrownBy(build).isInstanceOf(ConfigException.class).hasMessageStartingWith(key + ": ");
  }

  private static KafkaTopic topic(int partitions, Optional<Short> rf) {
    return new KafkaTopic("history", partitions, KafkaSettings.TOPIC_HISTORY_PARTITIONS, rf, true);
  }

  @Test
  void topicHoldsThePartitionAndReplicationRanges() {
    assertThatCode(() -> topic(10_000, Optional.of((short) 1))).doesNotThrowAnyException();
    refused("kafka.topic.history.partitions", () -> topic(10_001, Optional.empty()));
    refused("kafka.topic.history.partitions", () -> topic(0, Optional.empty()));
    refused("kafka.topic.replication.factor", () -> topic(1, Optional.of((short) 0)));
  }

  @Test
  void adminTimeoutHoldsItsRange() {
    KafkaTopic t = topic(1, Optional.empty());
    assertThatCode(() -> new KafkaTopicConfig(t, t, Duration.ofMinutes(10))).doesNotThrowAnyException();
    refused("kafka.admin.timeout", () -> new KafkaTopicConfig(t, t, Duration.ofMillis(999)));
    refused("kafka.admin.timeout", () -> new KafkaTopicConfig(t, t, Duration.ofMinutes(10).plusMillis(1)));
  }
}
