package io.playline.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

class HBaseProcessTest {

  private static final TableName TABLE = TableName.valueOf("process_check");
  private static final byte[] FAMILY = bytes("f");
  private static final byte[] QUALIFIER = bytes("q");
  private static final byte[] ROW = bytes("player-1");
  /** C1 only: HBase starts on less CPU, which matters more on two cores than peak speed. */
  private static final List<String> TEST_JVM_ARGS = List.of("-XX:TieredStopAtLevel=1");

  private Path workDir;

  @BeforeEach
  void freshWorkDir(TestInfo test) {
    workDir = TestWorkDirs.freshDir("hbase-process-" + test.getTestMethod().orElseThrow().getName());
  }

  @Test
  void putIsReadBackFailsWhileKilledAndSurvivesTheKillAfterRestart() throws IOException {
    HBaseProcess.Options options = new HBaseProcess.Options(workDir, null, 512, TEST_JVM_ARGS);
    HBaseProcess hbase = HBaseProcess.start(options);
    try {
      assertThat(hbase.zookeeperQuorum()).isEqualTo("127.0.0.1");
      assertThat(hbase.clientConfiguration().get("hbase.zookeeper.property.clientPort"))
          .isEqualTo(Integer.toString(hbase.zookeeperPort()));
      try (Connection connection = ConnectionFactory.createConnection(failFast(hbase));
          Admin admin = connection.getAdmin()) {
        admin.createTable(TableDescriptorBuilder.newBuilder(TABLE)
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY))
            .build());
        try (Table table = connection.getTable(TABLE)) {
          table.put(new Put(ROW).addColumn(FAMILY, QUALIFIER, bytes("level-7")));
          assertThat(read(table)).isEqualTo("level-7");

          hbase.kill();
          assertThat(hbase.isRunning()).isFalse();
          assertThatThrownBy(() -> read(table)).isInstanceOf(IOException.class);
        }
      }

      hbase.restart();
      assertThat(hbase.isRunning()).isTrue();
      try (Connection connection = ConnectionFactory.createConnection(hbase.clientConfiguration());
          Table table = connection.getTable(TABLE)) {
        assertThat(read(table)).isEqualTo("level-7");
      }
      hbase.close();
      assertThat(hbase.isRunning()).isFalse();
    } finally {
      hbase.close();
    }
    assertThat(TestWorkDirs.processesMentioning(workDir)).isEmpty();
  }

  @Test
  void clientsConnectedAcrossAKillAndRestartAreServedAgain() throws Exception {
    HBaseProcess hbase = HBaseProcess.start(new HBaseProcess.Options(workDir, null, 512, TEST_JVM_ARGS));
    Configuration conf = hbase.clientConfiguration();
    conf.setInt("hbase.client.operation.timeout", 10_000);
    ZooKeeper zk = new ZooKeeper(hbase.zookeeperQuorum() + ":" + hbase.zookeeperPort(), 10_000, event -> { });
    try (Connection connection = ConnectionFactory.createConnection(conf)) {
      try (Admin admin = connection.getAdmin()) {
        admin.createTable(TableDescriptorBuilder.newBuilder(TABLE)
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY)).build());
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> zk.getState() == ZooKeeper.States.CONNECTED);
      // More ZooKeeper transactions before the kill than a fresh start makes (a live cluster's
      // history): this client has seen them all.
      for (int i = 0; i < 300; i++) {
        zk.create("/playline-restart-check", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        zk.delete("/playline-restart-check", -1);
      }
      try (Table table = connection.getTable(TABLE)) {
        table.put(new Put(ROW).addColumn(FAMILY, QUALIFIER, bytes("level-8")));

        hbase.kill();
        hbase.restart();

        // The same clients: a ZooKeeper session that saw the old history, and an HBase connection
        // whose cached locations are gone, each connect again.
        await().atMost(Duration.ofSeconds(60)).until(() -> zk.getState() == ZooKeeper.States.CONNECTED);
        await().atMost(Duration.ofSeconds(90)).ignoreExceptions().until(() -> read(table).equals("level-8"));
      }
    } finally {
      zk.close();
      hbase.close();
    }
  }

  @Test
  void aProcessThatCannotStartFailsWithItsLogTail() {
    HBaseProcess.Options options =
        new HBaseProcess.Options(workDir, null, 128, List.of("-XX:+NoSuchOptionForThisTest"));

    assertThatThrownBy(() -> HBaseProcess.start(options))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("exited with code")
        .hasMessageContaining("Unrecognized VM option");
    assertThat(TestWorkDirs.processesMentioning(workDir)).isEmpty();
  }

  /** A client that gives up within seconds instead of retrying for minutes. */
  private static Configuration failFast(HBaseProcess hbase) {
    Configuration conf = hbase.clientConfiguration();
    conf.setInt("hbase.client.retries.number", 2);
    conf.setInt("hbase.client.pause", 100);
    conf.setInt("hbase.rpc.timeout", 2_000);
    conf.setInt("hbase.client.operation.timeout", 5_000);
    conf.setInt("zookeeper.recovery.retry", 1);
    return conf;
  }

  private static String read(Table table) throws IOException {
    byte[] value = table.get(new Get(ROW)).getValue(FAMILY, QUALIFIER);
    return value == null ? "(none)" : new String(value, StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
