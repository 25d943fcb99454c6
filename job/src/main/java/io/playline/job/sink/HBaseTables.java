package io.playline.job.sink;

import io.playline.core.store.HistoryChunks;
import io.playline.job.config.JobConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.NamespaceExistException;
import org.apache.hadoop.hbase.NamespaceNotFoundException;
import org.apache.hadoop.hbase.TableExistsException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.BloomType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the history table and its chunks table ({@link HistoryChunks}) when missing: their
 * namespace, one column family with TTL = the longest retention, one version per cell (the newest
 * view time) and a row bloom filter, pre-split over the row keys' two hex salt digits. An existing table is left as it is (changing a live
 * table is an operator's decision) but a different TTL is reported. Stateless; blocks on HBase.
 */
public final class HBaseTables {
  private static final Logger log = LoggerFactory.getLogger(HBaseTables.class);

  private HBaseTables() {}

  /** Makes sure {@code config.table()} exists with {@code config.family()}; safe to race with other job processes. */
  static void ensure(Connection connection, JobConfig config) throws IOException {
    TableName name = config.table();
    try (Admin admin = connection.getAdmin()) {
      ensureNamespace(admin, name.getNamespaceAsString());
      if (!admin.tableExists(name)) {
        create(admin, config, name);
      }
      check(admin.getDescriptor(name), name, config);
      TableName chunks = HistoryChunks.table(name);
      if (!admin.tableExists(chunks)) {
        create(admin, config, chunks);
      }
      check(admin.getDescriptor(chunks), chunks, config);
    }
  }

  /** Creates {@code namespace} unless it exists (or is HBase's own); safe to race with other job processes. */
  public static void ensureNamespace(Admin admin, String namespace) throws IOException {
    if (namespace.equals(NamespaceDescriptor.DEFAULT_NAMESPACE_NAME_STR)
        || namespace.equals(NamespaceDescriptor.SYSTEM_NAMESPACE_NAME_STR)) {
      return;
    }
    try {
      admin.getNamespaceDescriptor(namespace);
    } catch (NamespaceNotFoundException e) {
      try {
        admin.createNamespace(NamespaceDescriptor.create(namespace).build());
        log.info("Created HBase namespace {}", namespace);
      } catch (NamespaceExistException raced) {
        log.debug("HBase namespace {} was created concurrently", namespace);
      }
    }
  }

  /** Creates {@code name} (the history table or its chunks table) as the history table is made. */
  private static void create(Admin admin, JobConfig config, TableName name) throws IOException {
    int ttlSeconds = (int) config.maxRetention().toSeconds();
    ColumnFamilyDescriptor family = ColumnFamilyDescriptorBuilder.newBuilder(bytes(config.family()))
        .setTimeToLive(ttlSeconds)
        .setMaxVersions(1)
        .setBloomFilterType(BloomType.ROW)
        .build();
    if (createPresplit(admin, TableDescriptorBuilder.newBuilder(name).setColumnFamily(family).build(),
        config.tableRegions())) {
      log.info("Created HBase table {} (family {}, TTL {} s, {} regions)", name, config.family(),
          ttlSeconds, config.tableRegions());
    }
  }

  /**
   * Creates {@code table} pre-split into {@code regions} over the two-hex-digit salts every
   * Playline row key starts with; false when it exists (created meanwhile by another process).
   */
  public static boolean createPresplit(Admin admin, TableDescriptor table, int regions) throws IOException {
    try {
      byte[][] splits = splitKeys(regions);
      if (splits.length == 0) {
        admin.createTable(table);
      } else {
        admin.createTable(table, splits);
      }
      return true;
    } catch (TableExistsException raced) {
      log.debug("HBase table {} was created concurrently", table.getTableName());
      return false;
    }
  }

  private static void check(TableDescriptor table, TableName name, JobConfig config) {
    ColumnFamilyDescriptor family = table.getColumnFamily(bytes(config.family()));
    if (family == null) {
      throw new IllegalStateException("HBase table " + name + " has no column family '"
          + config.family() + "' (hbase.family); it has " + table.getColumnFamilyNames().size() + " others");
    }
    long wanted = config.maxRetention().toSeconds();
    if (family.getTimeToLive() != wanted) {
      log.warn("HBase table {} family {} keeps cells {} s but the longest history.retention is {} s; "
          + "alter the family's TTL to apply it", name, config.family(), family.getTimeToLive(), wanted);
    }
  }

  /** {@code regions - 1} split points spread evenly over the 256 two-hex-digit salts. */
  public static byte[][] splitKeys(int regions) {
    byte[][] splits = new byte[regions - 1][];
    for (int i = 1; i < regions; i++) {
      splits[i - 1] = bytes(HexFormat.of().toHexDigits((byte) (i * 256 / regions)));
    }
    return splits;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
