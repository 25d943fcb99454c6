package io.playline.testing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.playline.embedded.EmbeddedHBase;
import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealHBaseExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealHBaseExtensionTest {

  /** The one server every test in this JVM must see, recorded by whichever test runs first. */
  private static final AtomicReference<EmbeddedHBase> SERVER = new AtomicReference<>();
  private static final AtomicReference<Connection> CONNECTION = new AtomicReference<>();
  private static final Map<String, String> NAMESPACE_BY_TEST = new ConcurrentHashMap<>();

  private static final byte[] FAMILY = bytes("f");
  private static final byte[] QUALIFIER = bytes("q");
  private static final byte[] ROW = bytes("player-1");

  private HBaseNamespace fromBeforeEach;

  @BeforeEach
  void rememberNamespace(HBaseNamespace namespace) {
    fromBeforeEach = namespace;
  }

  @Test
  @Order(1)
  void firstTestRoundTripsAPutThroughItsOwnNamespace(HBaseNamespace namespace) throws IOException {
    NAMESPACE_BY_TEST.put("first", namespace.namespace());
    assertSharedServer(namespace);
    assertThat(namespace).isSameAs(fromBeforeEach);
    assertThat(namespace.namespace()).matches("t[0-9a-f]+");
    assertThat(namespace.table("history"))
        .isEqualTo(TableName.valueOf(namespace.namespace() + ":history"));
    try (Admin admin = namespace.connection().getAdmin()) {
      assertThat(admin.getNamespaceDescriptor(namespace.namespace()).getName())
          .isEqualTo(namespace.namespace());
      assertThat(admin.listTableNamesByNamespace(namespace.namespace())).isEmpty();
    }

    TableName name = createTable(namespace, "history", ColumnFamilyDescriptorBuilder.of(FAMILY));
    try (Table table = namespace.connection().getTable(name)) {
      table.put(new Put(ROW).addColumn(FAMILY, QUALIFIER, bytes("first")));
      assertThat(value(table.get(new Get(ROW)))).isEqualTo("first");
      assertThat(table.get(new Get(bytes("player-2"))).isEmpty()).isTrue();
    }
  }

  @Test
  @Order(2)
  void secondTestGetsAnotherEmptyNamespace(HBaseNamespace namespace) throws IOException {
    NAMESPACE_BY_TEST.put("second", namespace.namespace());
    assertSharedServer(namespace);
    assertThat(namespace.namespace()).isNotEqualTo(NAMESPACE_BY_TEST.get("first"));
    try (Admin admin = namespace.connection().getAdmin()) {
      assertThat(admin.listTableNamesByNamespace(namespace.namespace())).isEmpty();
      // The first test's table is still there, in its own namespace, on the same server.
      assertThat(admin.tableExists(TableName.valueOf(NAMESPACE_BY_TEST.get("first"), "history")))
          .isTrue();
    }
  }

  @Test
  void olderTimestampDoesNotReplaceNewerValue(HBaseNamespace namespace) throws IOException {
    TableName name = createTable(namespace, "lww", ColumnFamilyDescriptorBuilder.of(FAMILY));
    try (Table table = namespace.connection().getTable(name)) {
      table.put(new Put(ROW).addColumn(FAMILY, QUALIFIER, 2_000L, bytes("newer")));
      table.put(new Put(ROW).addColumn(FAMILY, QUALIFIER, 1_000L, bytes("older")));
      Result result = table.get(new Get(ROW));
      assertThat(value(result)).isEqualTo("newer");
      assertThat(result.getColumnLatestCell(FAMILY, QUALIFIER).getTimestamp()).isEqualTo(2_000L);

      table.put(new Put(ROW).addColumn(FAMILY, QUALIFIER, 3_000L, bytes("newest")));
      assertThat(value(table.get(new Get(ROW)))).isEqualTo("newest");
    }
  }

  @Test
  void familyTtlHidesCellsTimestampedBeforeIt(HBaseNamespace namespace) throws IOException {
    byte[] untimed = bytes("n");
    TableName name = namespace.table("ttl");
    try (Admin admin = namespace.connection().getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(name)
          .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(FAMILY)
              .setTimeToLive((int) TimeUnit.HOURS.toSeconds(1))
              .build())
          .setColumnFamily(ColumnFamilyDescriptorBuilder.of(untimed))
          .build());
    }
    long now = System.currentTimeMillis();
    long twoHoursAgo = now - TimeUnit.HOURS.toMillis(2);
    byte[] freshRow = bytes("fresh");
    try (Table table = namespace.connection().getTable(name)) {
      table.put(new Put(ROW)
          .addColumn(FAMILY, QUALIFIER, twoHoursAgo, bytes("expired"))
          .addColumn(untimed, QUALIFIER, twoHoursAgo, bytes("kept")));
      table.put(new Put(freshRow).addColumn(FAMILY, QUALIFIER, now - 60_000, bytes("live")));

      Result old = table.get(new Get(ROW));
      assertThat(old.getValue(FAMILY, QUALIFIER)).isNull();
      // The same timestamp in a family without TTL is visible: the TTL, not the age, hides it.
      assertThat(old.getValue(untimed, QUALIFIER)).asString(UTF_8).isEqualTo("kept");
      assertThat(value(table.get(new Get(freshRow)))).isEqualTo("live");
    }
  }

  @Test
  void configurationConnectsToTheSameServer(HBaseNamespace namespace) throws IOException {
    assertThat(namespace.configuration().get("hbase.zookeeper.quorum")).isEqualTo("127.0.0.1");
    try (Connection own = ConnectionFactory.createConnection(namespace.configuration());
        Admin admin = own.getAdmin()) {
      assertThat(Arrays.stream(admin.listNamespaceDescriptors()).map(NamespaceDescriptor::getName))
          .contains(namespace.namespace());
    }
  }

  @AfterAll
  static void everyTestHadItsOwnNamespace() {
    assertThat(NAMESPACE_BY_TEST).containsOnlyKeys("first", "second");
    assertThat(NAMESPACE_BY_TEST.values()).doesNotHaveDuplicates();
  }

  static void assertSharedServer(HBaseNamespace namespace) {
    SERVER.compareAndSet(null, namespace.server());
    assertThat(namespace.server()).isSameAs(SERVER.get());
    CONNECTION.compareAndSet(null, namespace.connection());
    assertThat(namespace.connection()).isSameAs(CONNECTION.get());
    assertThat(namespace.connection().isClosed()).isFalse();
  }

  private static TableName createTable(HBaseNamespace namespace, String qualifier,
      ColumnFamilyDescriptor family) throws IOException {
    TableName name = namespace.table(qualifier);
    try (Admin admin = namespace.connection().getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(name).setColumnFamily(family).build());
    }
    return name;
  }

  private static String value(Result result) {
    byte[] value = result.getValue(FAMILY, QUALIFIER);
    return value == null ? "<none>" : new String(value, UTF_8);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }
}
