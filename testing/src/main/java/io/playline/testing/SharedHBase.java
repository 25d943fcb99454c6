package io.playline.testing;

import io.playline.embedded.EmbeddedHBase;
import java.io.IOException;
import org.apache.hadoop.hbase.client.Connection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The test JVM's HBase server and the one client connection every test shares; closing it closes
 * the connection, then the server.
 */
record SharedHBase(EmbeddedHBase server, Connection connection) implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SharedHBase.class);

  @Override
  public void close() {
    try {
      connection.close();
    } catch (IOException | RuntimeException e) {
      log.warn("Closing the shared HBase connection failed; stopping the server anyway", e);
    } finally {
      server.close();
    }
  }
}
