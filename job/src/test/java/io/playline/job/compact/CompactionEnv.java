package io.playline.job.compact;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.compact.HistoryCompactor;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.query.TieredHistoryService;
import io.playline.core.query.TombstoneSink;
import io.playline.core.store.HBaseClient;
import io.playline.core.store.RedisConnections;
import io.playline.job.config.JobConfig;
import io.playline.job.metrics.JobMetrics;
import io.playline.job.sink.HBaseHistorySink;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.RedisNamespace;
import io.playline.time.Time;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/**
 * One compaction test's world on the real servers: the job's sink (writes as the consumer persists
 * them), the roll-up, and history-core's reads over an async HBase connection the test may wrap.
 * Deletes and clears reach HBase through the sink, as the job persists them. Closes what it opened.
 */
final class CompactionEnv implements AutoCloseable {
  private static final TombstoneSink NO_TOMBSTONES = new TombstoneSink() {
    @Override
    public void delete(long uid, List<ItemKey> items, long timeMs, byte[] mark) {
      throw new UnsupportedOperationException("deletes go through the sink here");
    }

    @Override
    public void clear(long uid, List<Business> businesses, long timeMs, byte[] mark) {
      throw new UnsupportedOperationException("clears go through the sink here");
    }
  };

  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final JobConfig config;
  final HBaseHistorySink sink;
  final HistoryCompactor compactor;
  final TieredHistoryService service;
  final RedisConnections redis;
  private final String redisPrefix;
  private final AsyncConnection async;

  CompactionEnv(RedisNamespace redisNs, HBaseNamespace hbase, Map<String, String> overrides,
      UnaryOperator<AsyncConnection> wrap) throws Exception {
    Map<String, String> settings = new HashMap<>();
    settings.put("redis.key.prefix", redisNs.keyPrefix());
    settings.put("hbase.table", hbase.table("history").getNameAsString());
    settings.put("hbase.table.regions", "2");
    settings.putAll(overrides);
    ConfigSource source = ConfigSource.empty().with(settings);
    CoreConfig core = CoreConfig.from(source);
    config = JobConfig.from(source, core);
    sink = new HBaseHistorySink(hbase.connection(), config, new JobMetrics(registry, Time.SYSTEM), Time.SYSTEM);
    sink.prepare();
    compactor = new HistoryCompactor(hbase.connection(), config.layout(), config.compaction().rollup(),
        System::currentTimeMillis);
    redisPrefix = redisNs.keyPrefix();
    redis = RedisConnections.connect(redisNs.redisUri(), false, Duration.ofSeconds(5));
    async = ConnectionFactory.createAsyncConnection(hbase.configuration()).get(60, TimeUnit.SECONDS);
    service = new TieredHistoryService(core, redis, HBaseClient.borrowing(wrap.apply(async)), NO_TOMBSTONES, registry,
        Time.SYSTEM);
  }

  /** Writes {@code records} of {@code uid} as the job persists a poll. */
  void upsert(long uid, List<HistoryRecord> records) {
    sink.write(List.of(HistoryChange.newBuilder().setUid(uid).addAllUpserts(records).build()));
  }

  /** Removes the test's Redis keys: every user is cold again (read from HBase and warmed). */
  void forgetRedis() throws Exception {
    List<byte[]> keys = redis.shared().keys((redisPrefix + "*").getBytes(StandardCharsets.UTF_8))
        .toCompletableFuture().get(30, TimeUnit.SECONDS);
    if (!keys.isEmpty()) {
      redis.shared().del(keys.toArray(new byte[0][])).toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  double counter(String name) {
    return registry.find(name).counters().stream().mapToDouble(c -> c.count()).sum();
  }

  @Override
  public void close() throws java.io.IOException {
    try {
      async.close();
    } finally {
      redis.close();
    }
  }
}
