package io.playline.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

class EmbeddedHBaseTest {

  private static final TableName TABLE = TableName.valueOf("restart_check");
  private static final byte[] FAMILY = bytes("f");
  private static final byte[] QUALIFIER = bytes("q");
  private static final byte[] ROW = bytes("player-1");

  private Path workDir;

  /** Empties this test's own work dir; what a run leaves there stays for a look until the next. */
  @BeforeEach
  void freshWorkDir(TestInfo test) {
    workDir = TestWorkDirs.freshDir("hbase-" + test.getTestMethod().orElseThrow().getName());
  }

  @Test
  void restartOnSameWorkDirKeepsTableDataEvenOnAnotherZooKeeperPort() throws IOException {
    int firstPort;
    try (EmbeddedHBase hbase = EmbeddedHBase.start(new EmbeddedHBase.Options(workDir, 0))) {
      firstPort = hbase.zookeeperPort();
      assertThat(hbase.name()).isEqualTo("hbase");
      assertThat(hbase.zookeeperQuorum()).isEqualTo("127.0.0.1");
      assertThat(hbase.clientConfiguration().get("hbase.zookeeper.property.clientPort"))
          .isEqualTo(Integer.toString(firstPort));
      try (Connection connection = ConnectionFactory.createConnection(hbase.clientConfiguration());
          Admin admin = connection.getAdmin()) {
        admin.createTable(TableDescriptorBuilder.newBuilder(TABLE)
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY))
            .build());
        try (Table table = connection.getTable(TABLE)) {
          table.put(new Put(ROW).addColumn(FAMILY, QUALIFIER, bytes("level-7")));
        }
      }
    }

    int secondPort = otherFreePort(firstPort);
    try (EmbeddedHBase hbase = EmbeddedHBase.start(new EmbeddedHBase.Options(workDir, secondPort));
        Connection connection = ConnectionFactory.createConnection(hbase.clientConfiguration());
        Table table = connection.getTable(TABLE)) {
      assertThat(hbase.zookeeperPort()).isEqualTo(secondPort);
      Result result = table.get(new Get(ROW));
      assertThat(result.getValue(FAMILY, QUALIFIER)).asString(StandardCharsets.UTF_8)
          .isEqualTo("level-7");
    }
  }

  @Test
  void startFailsFastAndNamesThePortWhenZooKeeperPortIsTaken() throws IOException {
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();
      assertThatThrownBy(() -> EmbeddedHBase.start(new EmbeddedHBase.Options(workDir, port)))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("127.0.0.1:" + port);
    }
  }

  @Test
  void optionsRejectOutOfRangePort() {
    assertThatThrownBy(() -> new EmbeddedHBase.Options(workDir, 65_536))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("zookeeperPort: 65536");
  }

  private static int otherFreePort(int notThis) throws IOException {
    int port = FreePorts.pick();
    while (port == notThis) {
      port = FreePorts.pick();
    }
    return port;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
