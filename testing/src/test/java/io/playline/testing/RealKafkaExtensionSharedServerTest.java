package io.playline.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.embedded.EmbeddedKafka;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two test classes get the same Kafka server: two nested classes (each its own class context) record
 * what they saw and the server is compared once both have run, whatever order the classes run in.
 * Also checked against {@link RealKafkaExtensionTest}, whichever of the files runs first.
 */
@ExtendWith(RealKafkaExtension.class)
class RealKafkaExtensionSharedServerTest {

  private static final Map<String, EmbeddedKafka> SERVER_BY_CLASS = new ConcurrentHashMap<>();

  private static void record(String testClass, KafkaNamespace namespace) throws Exception {
    SERVER_BY_CLASS.put(testClass, namespace.server());
    RealKafkaExtensionTest.assertSharedServer(namespace);
    String topic = namespace.topic("other");
    assertThat(RealKafkaExtensionTest.describe(namespace, topic).partitions()).hasSize(KafkaNamespace.PARTITIONS);
  }

  @AfterAll
  static void bothClassesSawOneServer() {
    assertThat(SERVER_BY_CLASS).containsOnlyKeys("one", "another");
    assertThat(SERVER_BY_CLASS.get("one")).isSameAs(SERVER_BY_CLASS.get("another"));
  }

  @Nested
  class OneTestClass {
    @Test
    void seesTheServer(KafkaNamespace namespace) throws Exception {
      record("one", namespace);
    }
  }

  @Nested
  class AnotherTestClass {
    @Test
    void seesTheSameServer(KafkaNamespace namespace) throws Exception {
      record("another", namespace);
    }
  }
}
