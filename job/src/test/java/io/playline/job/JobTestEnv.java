package io.playline.job;

import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.HistoryRowKeys;
import io.playline.core.store.RedisKeys;
import io.playline.job.config.JobConfig;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryChangeBatch;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RedisNamespace;
import io.playline.time.Time;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * One test's job environment on the real servers: configs isolated by the namespaces (key prefix,
 * fresh topic and group, a table in the test's HBase namespace), a Redis connection, and helpers
 * to produce batches, seed Redis and read HBase cells. Not thread-safe; one per test.
 */
public final class JobTestEnv implements AutoCloseable {
  public final KafkaNamespace kafka;
  public final HBaseNamespace hbase;
  public final CoreConfig core;
  public final JobConfig config;
  public final RedisConnections redis;
  public final RedisKeys keys;
  public final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  public final String topic;
  public final long base = System.currentTimeMillis() - Duration.ofMinutes(30).toMillis();
  private @Nullable KafkaProducer<byte[], byte[]> producer;
  private @Nullable Admin admin;

  private JobTestEnv(RedisNamespace redisNs, KafkaNamespace kafka, HBaseNamespace hbase, Map<String, String> overrides) {
    this.kafka = kafka;
    this.hbase = hbase;
    this.topic = kafka.topic("history");
    Map<String, String> settings = new HashMap<>();
    settings.put("redis.key.prefix", redisNs.keyPrefix());
    settings.put("kafka.topic.history", topic);
    settings.put("kafka.topic.history.partitions", Integer.toString(KafkaNamespace.PARTITIONS));
    settings.put("job.group.id", kafka.consumerProperties("job").getProperty(ConsumerConfig.GROUP_ID_CONFIG));
    settings.put("hbase.table", hbase.table("history").getNameAsString());
    settings.put("hbase.table.regions", "2");
    settings.put("job.poll.timeout", "100ms");
    settings.put("job.retry.backoff.base", "20ms");
    settings.put("job.retry.backoff.cap", "200ms");
    settings.put("recovery.interval", "1h");
    settings.put("job.shutdown.timeout", "20s");
    settings.putAll(overrides);
    ConfigSource source = ConfigSource.empty().with(settings);
    this.core = CoreConfig.from(source);
    this.config = JobConfig.from(source, core);
    this.redis = RedisConnections.connect(redisNs.redisUri(), false, Duration.ofSeconds(5));
    this.keys = new RedisKeys(core.redisKeyPrefix());
  }

  public static JobTestEnv create(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase) {
    return create(redis, kafka, hbase, Map.of());
  }

  public static JobTestEnv create(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase,
      Map<String, String> overrides) {
    return new JobTestEnv(redis, kafka, hbase, overrides);
  }

  /** A job wired as the standalone launcher wires it. */
  public PlaylineJob newJob() {
    return new PlaylineJob(config, core, redis, hbase.connection(), kafka.bootstrapServers(), registry,
        Time.SYSTEM);
  }

  public static HistoryRecord record(long uid, Business business, long oid, long progressMs, long viewTimeMs) {
    return HistoryRecord.newBuilder().setUid(uid).setBusiness(business).setOid(oid).setProgressMs(progressMs)
        .setDurationMs(600_000).setViewTimeMs(viewTimeMs).setDeviceId("d-" + progressMs).setPlatform("web").build();
  }

  public static HistoryChangeBatch batch(long flushedAtMs, HistoryChange... changes) {
    HistoryChangeBatch.Builder b = HistoryChangeBatch.newBuilder().setFlushedAtMs(flushedAtMs).setNodeId("test-node");
    for (HistoryChange c : changes) {
      b.addChanges(c);
    }
    return b.build();
  }

  /** The partition of a user's records, as the write-back publisher picks it. */
  public static int partitionOf(long uid) {
    return (int) Math.floorMod(uid, (long) KafkaNamespace.PARTITIONS);
  }

  /** Sends {@code batch} to the partition of its first user and waits for the ack. */
  public void produce(HistoryChangeBatch batch) {
    produceRaw(partitionOf(batch.getChanges(0).getUid()), batch.toByteArray());
  }

  public void produceRaw(int partition, byte[] value) {
    if (producer == null) {
      producer = new KafkaProducer<>(kafka.producerProperties());
    }
    try {
      producer.send(new ProducerRecord<>(topic, partition, Integer.toString(partition).getBytes(StandardCharsets.US_ASCII),
          value)).get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("produce failed", e);
    }
  }

  /** The group's committed offset of {@code partition}, or -1. */
  public long committed(int partition) {
    if (admin == null) {
      Properties p = new Properties();
      p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
      admin = Admin.create(p);
    }
    try {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin.listConsumerGroupOffsets(config.groupId()).partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
      OffsetAndMetadata o = offsets.get(new TopicPartition(topic, partition));
      return o == null ? -1 : o.offset();
    } catch (Exception e) {
      throw new IllegalStateException("listConsumerGroupOffsets failed", e);
    }
  }

  /** Waits until the job committed {@code offset} on {@code uid}'s partition. */
  public void awaitCommitted(long uid, long offset) {
    await().atMost(Duration.ofSeconds(60)).until(() -> committed(partitionOf(uid)) >= offset);
  }

  /** The newest cell of an item in HBase, or null. */
  public @Nullable Cell cell(long uid, Business business, long oid) {
    byte[] family = config.family().getBytes(StandardCharsets.US_ASCII);
    try (Table table = hbase.connection().getTable(config.table())) {
      Result result = table.get(new Get(HistoryRowKeys.row(uid)).addColumn(family, HistoryRowKeys.qualifier(business, oid)));
      return result.isEmpty() ? null : result.getColumnLatestCell(family, HistoryRowKeys.qualifier(business, oid));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The item's counters as the job wrote them (zeros when none). */
  public io.playline.proto.v1.ItemStats itemStats(Business business, long oid) {
    io.playline.proto.v1.ItemKey item = io.playline.proto.v1.ItemKey.newBuilder().setBusiness(business).setOid(oid).build();
    try (Table table = hbase.connection().getTable(io.playline.core.stats.ItemStatsLayout.of(core.hbase()).stats())) {
      return io.playline.core.stats.ItemStatsLayout.sum(item, table.get(new Get(io.playline.core.stats.ItemStatsLayout.row(item))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The record HBase returns for an item, or null. */
  public @Nullable HistoryRecord stored(long uid, Business business, long oid) {
    Cell cell = cell(uid, business, oid);
    try {
      return cell == null ? null : HistoryRecord.parseFrom(CellUtil.cloneValue(cell));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes {@code r} straight into the user's Redis records hash, as the write-through does. */
  public void putRedisRecord(HistoryRecord r) {
    redis.shared().hset(keys.records(r.getUid()), RedisKeys.member(r.getBusiness(), r.getOid()), r.toByteArray())
        .toCompletableFuture().join();
  }

  /** Adds (or rescores) the recovery mark of an item as if stamped at {@code atMs} (scores are microseconds). */
  public void mark(long uid, Business business, long oid, long atMs) {
    markRaw(uid, RedisKeys.recoveryMember(uid, RedisKeys.member(business, oid)), atMs);
  }

  /** Adds (or rescores) a recovery mark {@code member} of {@code uid}'s shard as if stamped at {@code atMs}. */
  public void markRaw(long uid, byte[] member, long atMs) {
    redis.shared().zadd(keys.recovery(RedisKeys.recoveryShard(uid, core.recoveryShards())),
        (double) TimeUnit.MILLISECONDS.toMicros(atMs), member).toCompletableFuture().join();
  }

  /** The score (microseconds) of an item's recovery mark, or null when there is none. */
  public @Nullable Double markScore(long uid, Business business, long oid) {
    return markScoreRaw(uid, RedisKeys.recoveryMember(uid, RedisKeys.member(business, oid)));
  }

  /** The score (microseconds) of a recovery mark {@code member} of {@code uid}'s shard, or null. */
  public @Nullable Double markScoreRaw(long uid, byte[] member) {
    return redis.shared().zscore(keys.recovery(RedisKeys.recoveryShard(uid, core.recoveryShards())), member)
        .toCompletableFuture().join();
  }

  /**
   * Appends an entry listing {@code items} (each {@code uid:business:oid}, or anything else to play a
   * malformed one) to recovery log {@code shard}, with the id {@code <atMs>-<seq>} as if Redis had
   * added it at {@code atMs}; returns the id. Ids must rise within a shard.
   */
  public String logEntry(int shard, long atMs, int seq, String... items) {
    return redis.shared().xadd(keys.recoveryLog(shard), new io.lettuce.core.XAddArgs().id(atMs + "-" + seq),
        Map.of("m".getBytes(java.nio.charset.StandardCharsets.US_ASCII),
            String.join(" ", items).getBytes(java.nio.charset.StandardCharsets.US_ASCII))).toCompletableFuture().join();
  }

  /** The ids of every recovery log's entries, by shard, oldest first (shards without entries left out). */
  public Map<Integer, List<String>> logEntryIds() {
    Map<Integer, List<String>> ids = new java.util.TreeMap<>();
    for (int shard = 0; shard < core.recoveryShards(); shard++) {
      List<String> shardIds = redis.shared().xrange(keys.recoveryLog(shard), io.lettuce.core.Range.create("-", "+"))
          .toCompletableFuture().join().stream().map(io.lettuce.core.StreamMessage::getId).toList();
      if (!shardIds.isEmpty()) {
        ids.put(shard, shardIds);
      }
    }
    return ids;
  }

  public double counter(String name) {
    return registry.find(name).counters().stream().mapToDouble(c -> c.count()).sum();
  }

  @Override
  public void close() {
    if (producer != null) {
      producer.close(Duration.ofSeconds(5));
    }
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
    }
    redis.close();
  }
}
