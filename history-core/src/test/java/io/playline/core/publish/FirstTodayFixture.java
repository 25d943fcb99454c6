package io.playline.core.publish;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.core.write.BatchOutcome;
import io.playline.core.write.FirstTodayCheck;
import io.playline.core.write.RedisHistoryWriter;
import io.playline.core.write.UserWrite;
import io.playline.core.write.WriteBackSink;
import io.playline.core.write.WriteBatch;
import io.playline.core.write.WriteMetrics;
import io.playline.time.Time;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Producer;

/**
 * The first-today write path of one node against real Redis: a writer whose checks leave events in
 * the outboxes, publishers over them, and what the outboxes hold. Confined to the test thread.
 */
final class FirstTodayFixture implements AutoCloseable {
  static final String DAY = "20261121";
  static final String ISO_DAY = "2026-11-21";

  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final CoreConfig config;
  final RedisConnections redis;
  final RedisKeys keys;
  final RedisHistoryWriter writer;
  final long now = System.currentTimeMillis();

  /** {@code settings} override the defaults under {@code keyPrefix}, first-today to {@code topic}. */
  FirstTodayFixture(RedisConnections redis, String keyPrefix, String topic, Map<String, String> settings) {
    this.config = CoreConfig.from(ConfigSource.empty()
        .with(Map.of("redis.key.prefix", keyPrefix, "kafka.topic.first.today", topic)).with(settings));
    this.redis = redis;
    this.keys = new RedisKeys(config.redisKeyPrefix());
    this.writer = new RedisHistoryWriter(config, redis, WriteBackSink.NONE, new WriteMetrics(registry, Time.SYSTEM));
  }

  /** A publisher as a node starts it, with meters of its own. */
  FirstTodayPublisher publisher(Producer<byte[], byte[]> producer, FirstTodayMetrics metrics) {
    FirstTodayOutbox outbox = new FirstTodayOutbox(redis.shared(), keys, config.firstTodayShards(),
        config.firstTodayOutbox(), Duration.ofSeconds(5));
    return new FirstTodayPublisher(config, producer, outbox, metrics, Time.SYSTEM);
  }

  /** One batch of {@code writes} with a first-today check of {@code uid} from {@code device}; waits for it. */
  BatchOutcome check(long uid, String device, List<UserWrite> writes) throws Exception {
    WriteBatch batch = new WriteBatch(now, DAY, 172_800_000L, writes, List.of(new FirstTodayCheck(uid, device, "tv")));
    return writer.write(batch).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /**
   * What the heartbeat batcher does for one heartbeat: checks {@code uid} and, when it is the
   * user's first of the day, tells {@code listener}. Answers whether it was the first.
   */
  boolean countAndPublish(long uid, String device, FirstTodayPublisher listener) throws Exception {
    boolean first = check(uid, device, List.of()).firstToday()[0];
    if (first) {
      listener.firstToday(uid, ISO_DAY, device, "tv", now);
    }
    return first;
  }

  /** Events in every outbox. */
  long outboxSize() throws Exception {
    long size = 0;
    for (int shard = 0; shard < config.firstTodayOutbox().shards(); shard++) {
      size += redis.shared().zcard(keys.firstTodayOutbox(shard)).get(5, TimeUnit.SECONDS);
    }
    return size;
  }

  @Override
  public void close() {
    writer.close();
  }
}
