package io.playline.testing;

import io.playline.embedded.EmbeddedKafka;
import java.time.Duration;
import org.apache.kafka.clients.admin.Admin;

/**
 * The test JVM's Kafka server and the one admin client that creates topics on it; closing it
 * closes the client, then the server.
 */
record SharedKafka(EmbeddedKafka server, Admin admin) implements AutoCloseable {

  @Override
  public void close() {
    try {
      admin.close(Duration.ofSeconds(5));
    } finally {
      server.close();
    }
  }
}
