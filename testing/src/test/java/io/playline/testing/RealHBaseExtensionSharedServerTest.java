package io.playline.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.embedded.EmbeddedHBase;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.hbase.client.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two test classes get the same HBase server and connection, each a namespace of its own: two
 * nested classes (each its own class context) record what they saw and the server is compared once
 * both have run, whatever order the classes run in. Also checked against {@link
 * RealHBaseExtensionTest}, whichever of the files runs first.
 */
@ExtendWith(RealHBaseExtension.class)
class RealHBaseExtensionSharedServerTest {

  private static final Map<String, EmbeddedHBase> SERVER_BY_CLASS = new ConcurrentHashMap<>();
  private static final Map<String, String> NAMESPACE_BY_CLASS = new ConcurrentHashMap<>();

  private static void record(String testClass, HBaseNamespace namespace) throws IOException {
    SERVER_BY_CLASS.put(testClass, namespace.server());
    NAMESPACE_BY_CLASS.put(testClass, namespace.namespace());
    RealHBaseExtensionTest.assertSharedServer(namespace);
    try (Admin admin = namespace.connection().getAdmin()) {
      assertThat(admin.listTableNamesByNamespace(namespace.namespace())).isEmpty();
    }
  }

  @AfterAll
  static void bothClassesSawOneServer() {
    assertThat(SERVER_BY_CLASS).containsOnlyKeys("one", "another");
    assertThat(SERVER_BY_CLASS.get("one")).isSameAs(SERVER_BY_CLASS.get("another"));
    assertThat(NAMESPACE_BY_CLASS.get("one")).isNotEqualTo(NAMESPACE_BY_CLASS.get("another"));
  }

  @Nested
  class OneTestClass {
    @Test
    void seesTheServer(HBaseNamespace namespace) throws IOException {
      record("one", namespace);
    }
  }

  @Nested
  class AnotherTestClass {
    @Test
    void seesTheSameServer(HBaseNamespace namespace) throws IOException {
      record("another", namespace);
    }
  }
}
