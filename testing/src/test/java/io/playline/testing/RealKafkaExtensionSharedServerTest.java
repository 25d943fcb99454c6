package io.playline.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A second test class: it must get the same Kafka server as {@link RealKafkaExtensionTest}. */
@ExtendWith(RealKafkaExtension.class)
class RealKafkaExtensionSharedServerTest {

  @Test
  void anotherTestClassSharesTheSameServer(KafkaNamespace namespace) throws Exception {
    RealKafkaExtensionTest.assertSharedServer(namespace);
    String topic = namespace.topic("other");
    assertThat(RealKafkaExtensionTest.describe(namespace, topic).partitions())
        .hasSize(KafkaNamespace.PARTITIONS);
  }
}
