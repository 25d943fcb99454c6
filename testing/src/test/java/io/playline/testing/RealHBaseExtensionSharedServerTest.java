package io.playline.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.apache.hadoop.hbase.client.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A second test class: it must get the same HBase server and connection as {@link
 * RealHBaseExtensionTest}, and a namespace of its own.
 */
@ExtendWith(RealHBaseExtension.class)
class RealHBaseExtensionSharedServerTest {

  @Test
  void anotherTestClassSharesTheSameServerAndConnection(HBaseNamespace namespace)
      throws IOException {
    RealHBaseExtensionTest.assertSharedServer(namespace);
    try (Admin admin = namespace.connection().getAdmin()) {
      assertThat(admin.listTableNamesByNamespace(namespace.namespace())).isEmpty();
    }
  }
}
