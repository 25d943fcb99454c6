package io.playline.core.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.store.HBaseClient;
import io.playline.core.store.HistoryRowKeys;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.core.write.BatchOutcome;
import io.playline.core.write.RedisHistoryWriter;
import io.playline.core.write.UserWrite;
import io.playline.core.write.WriteBackSink;
import io.playline.core.write.WriteBatch;
import io.playline.core.write.WriteMetrics;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.HistoryPage;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.RedisNamespace;
import io.playline.time.Time;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.jspecify.annotations.Nullable;

/**
 * One test's query environment on the real servers: a key prefix, a history table in the test's
 * HBase namespace, the write-through writer (as heartbeats write), HBase puts (as the job writes),
 * a recording tombstone sink and the service under test. Confined to the test thread; every wait is
 * bounded. Closes what it opened.
 */
final class QueryTestEnv implements AutoCloseable {
  static final long DAY = Duration.ofDays(1).toMillis();
  private static final long WAIT_SECONDS = 30;

  final long now = System.currentTimeMillis();
  final CoreConfig config;
  final RedisConnections redis;
  final RedisKeys keys;
  /** The read paths' client, opened by the first read that needs HBase, as a node's is. */
  final HBaseClient hbaseClient;
  final HBaseNamespace hbase;
  final RedisHistoryWriter writer;
  final RecordingSink sink = new RecordingSink();
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final TieredHistoryService service;

  QueryTestEnv(RedisNamespace redisNs, HBaseNamespace hbase, Map<String, String> overrides) {
    this.hbase = hbase;
    Map<String, String> settings = new HashMap<>();
    settings.put("redis.key.prefix", redisNs.keyPrefix());
    settings.put("hbase.table", hbase.table("history").getNameAsString());
    settings.putAll(overrides);
    this.config = CoreConfig.from(ConfigSource.empty().with(settings));
    this.keys = new RedisKeys(config.redisKeyPrefix());
    createTable();
    this.redis = RedisConnections.connect(redisNs.redisUri(), false, Duration.ofSeconds(5));
    this.hbaseClient = HBaseClient.lazy(hbase.configuration(), Duration.ofSeconds(60), registry, Time.SYSTEM);
    this.writer = new RedisHistoryWriter(config, redis, WriteBackSink.NONE, new WriteMetrics(registry, Time.SYSTEM));
    this.service = new TieredHistoryService(config, redis, hbaseClient, sink, registry, Time.SYSTEM);
  }

  private void createTable() {
    try (Admin admin = hbase.connection().getAdmin()) {
      if (admin.tableExists(config.hbase().table())) {
        return;
      }
      admin.createTable(TableDescriptorBuilder.newBuilder(config.hbase().table())
          .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(config.hbase().familyBytes())
              .setMaxVersions(1)
              .setTimeToLive((int) config.hbase().maxRetention().toSeconds())
              .build())
          .build());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static HistoryRecord record(long uid, Business business, long oid, long progressMs, long viewTimeMs) {
    return HistoryRecord.newBuilder().setUid(uid).setBusiness(business).setOid(oid).setProgressMs(progressMs)
        .setDurationMs(600_000).setViewTimeMs(viewTimeMs).setDeviceId("d1").setPlatform("web").build();
  }

  static ItemKey item(Business business, long oid) {
    return ItemKey.newBuilder().setBusiness(business).setOid(oid).build();
  }

  /** Writes {@code records} through Redis as one heartbeat batch does; returns the outcome. */
  BatchOutcome heartbeat(HistoryRecord... records) {
    Map<Long, List<HistoryRecord>> byUser = new HashMap<>();
    for (HistoryRecord r : records) {
      byUser.computeIfAbsent(r.getUid(), u -> new ArrayList<>()).add(r);
    }
    List<UserWrite> writes = new ArrayList<>();
    byUser.forEach((uid, rs) -> writes.add(new UserWrite(uid, rs)));
    return join(writer.write(new WriteBatch(System.currentTimeMillis(), "20240101", DAY, writes, List.of())));
  }

  /** Writes {@code records} to HBase as the job does: one cell per item, stamped with its view time. */
  void persist(HistoryRecord... records) {
    byte[] family = config.hbase().familyBytes();
    List<Put> puts = new ArrayList<>();
    for (HistoryRecord r : records) {
      puts.add(new Put(HistoryRowKeys.row(r.getUid()))
          .addColumn(family, HistoryRowKeys.qualifier(r.getBusiness(), r.getOid()), r.getViewTimeMs(), r.toByteArray()));
    }
    try (Table table = hbase.connection().getTable(config.hbase().table())) {
      table.put(puts);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  HistoryPage page(long uid, List<Business> businesses, @Nullable Cursor after, int limit) {
    return join(service.list(uid, businesses, after, limit));
  }

  /** Every page of the user's history; fails after 200 pages. */
  List<HistoryRecord> listAll(long uid, List<Business> businesses, int limit) {
    List<HistoryRecord> all = new ArrayList<>();
    Cursor after = null;
    for (int pages = 0; pages < 200; pages++) {
      HistoryPage page = page(uid, businesses, after, limit);
      assertThat(page.getRecordsCount()).isLessThanOrEqualTo(limit);
      all.addAll(page.getRecordsList());
      if (!page.getHasMore()) {
        assertThat(page.hasNext()).isFalse();
        return all;
      }
      after = page.getNext();
    }
    throw new AssertionError("more than 200 pages");
  }

  static <T> T join(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    } catch (ExecutionException e) {
      throw new AssertionError("stage failed", e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("stage did not complete in " + WAIT_SECONDS + " s", e);
    }
  }

  /** The exception {@code stage} failed with. */
  static Throwable failure(CompletionStage<?> stage) {
    try {
      stage.toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (InterruptedException | TimeoutException e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("stage succeeded");
  }

  double counter(String name, String... tags) {
    return registry.find(name).tags(tags).counters().stream().mapToDouble(Counter::count).sum();
  }

  /** Members of the user's Redis timeline, newest first, markers included. */
  List<String> timeline(long uid) {
    List<String> members = new ArrayList<>();
    join(redis.shared().zrevrange(keys.timeline(uid), 0, -1)).forEach(m -> members.add(new String(m, java.nio.charset.StandardCharsets.US_ASCII)));
    return members;
  }

  @Override
  public void close() {
    writer.close();
    try {
      hbaseClient.close();
    } finally {
      redis.close();
    }
  }

  /** A tombstone sink that records what it was handed. Thread-safe. */
  static final class RecordingSink implements TombstoneSink {
    final List<String> ops = new ArrayList<>();
    final List<String> marks = new ArrayList<>();

    @Override
    public synchronized void delete(long uid, List<ItemKey> items, long timeMs, byte[] mark) {
      items.forEach(item -> ops.add("delete " + uid + " " + item.getBusiness() + ":" + item.getOid() + " @" + timeMs));
      marks.add(new String(mark, StandardCharsets.US_ASCII));
    }

    @Override
    public synchronized void clear(long uid, List<Business> businesses, long timeMs, byte[] mark) {
      ops.add("clear " + uid + " " + businesses + " @" + timeMs);
      marks.add(new String(mark, StandardCharsets.US_ASCII));
    }

    synchronized List<String> ops() {
      return List.copyOf(ops);
    }

    /** The recovery marks handed over with the deletes and clears, in order. */
    synchronized List<String> marks() {
      return List.copyOf(marks);
    }
  }
}
