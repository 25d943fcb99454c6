package io.playline.testing;

import io.playline.embedded.EmbeddedHBase;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;

/**
 * One test's share of the test JVM's real HBase: an HBase namespace, created for this test, that
 * no other test uses.
 *
 * <p>Thread-safe. Each test gets its own instance from {@link RealHBaseExtension}.
 */
public final class HBaseNamespace {

  private final SharedHBase shared;
  private final String namespace;

  HBaseNamespace(SharedHBase shared, String namespace) {
    this.shared = shared;
    this.namespace = namespace;
  }

  /** Returns the shared server. */
  public EmbeddedHBase server() {
    return shared.server();
  }

  /**
   * Returns the connection shared by every test in this JVM; do not close it, the extension does
   * at the end of the run.
   */
  public Connection connection() {
    return shared.connection();
  }

  /** Returns a new client configuration pointing at the server, for code that connects itself. */
  public Configuration configuration() {
    return shared.server().clientConfiguration();
  }

  /** Returns this test's namespace, which exists and is empty when the test starts. */
  public String namespace() {
    return namespace;
  }

  /**
   * Returns the name {@code namespace():qualifier}; does not create the table.
   *
   * @throws IllegalArgumentException if {@code qualifier} is not a legal HBase table qualifier
   */
  public TableName table(String qualifier) {
    return TableName.valueOf(namespace, qualifier);
  }

  @Override
  public String toString() {
    return "HBaseNamespace{" + namespace + " on " + shared.server() + "}";
  }
}
