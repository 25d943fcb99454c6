package io.playline.core;

import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.EventLoop;
import io.playline.core.aggregate.WriteBackAggregator;
import io.playline.core.aggregate.WriteBackMetrics;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.kafka.KafkaTopics;
import io.playline.core.publish.FirstTodayMetrics;
import io.playline.core.publish.FirstTodayOutbox;
import io.playline.core.publish.FirstTodayPublisher;
import io.playline.core.publish.KafkaProducers;
import io.playline.core.query.HistoryService;
import io.playline.core.query.TieredHistoryService;
import io.playline.core.query.TombstoneSink;
import io.playline.core.store.HBaseClient;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.core.write.RecoveryLog;
import io.playline.core.write.RedisHistoryWriter;
import io.playline.core.write.WriteMetrics;
import io.playline.time.Time;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The history-core runtime of one process: the Redis client, the one Kafka producer, the
 * write-through writer, the write-back aggregator and the first-today publisher, wired together
 * and closed in dependency order (writer, then aggregator flush, then producer, then HBase, then
 * Redis). The read and user-control paths need HBase too: {@link #attachHBase} adds them, over an
 * {@link HBaseClient} that opens on the first read that needs HBase.
 */
public final class HistoryCore implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HistoryCore.class);
  /** Opening the HBase client may take this many {@code query.hbase.timeout}s: once per process, off any read's thread. */
  private static final int CONNECT_TIMEOUTS = 6;

  private final CoreConfig config;
  private final String redisUri;
  private final RedisConnections redis;
  private final KafkaProducer<byte[], byte[]> producer;
  private final WriteBackAggregator aggregator;
  private final FirstTodayPublisher firstToday;
  private final RedisHistoryWriter writer;
  private final MeterRegistry registry;
  private final Time time;
  private @Nullable HBaseClient hbase;
  private volatile @Nullable HistoryService history;
  /** The internal API's Redis clients by loop ({@link #historyOn}); closed before {@link #redis}. */
  private final Map<EventLoop, RedisConnections> apiRedis = new LinkedHashMap<>();
  /** Set by {@link #close()}: no client is opened after it. */
  private boolean closed;

  private HistoryCore(CoreConfig config, String redisUri, RedisConnections redis, KafkaProducer<byte[], byte[]> producer,
      WriteBackAggregator aggregator, FirstTodayPublisher firstToday, RedisHistoryWriter writer,
      MeterRegistry registry, Time time) {
    this.config = config;
    this.redisUri = redisUri;
    this.redis = redis;
    this.producer = producer;
    this.aggregator = aggregator;
    this.firstToday = firstToday;
    this.writer = writer;
    this.registry = registry;
    this.time = time;
  }

  /**
   * Creates or checks the Kafka topics ({@link KafkaTopics}, bounded by {@code kafka.admin.timeout}),
   * connects to Redis ({@code redis.cluster} selects Cluster mode, {@code redis.cluster.refresh.*}
   * how it follows failovers, {@code redis.timeout} bounds every command) and Kafka, and starts the
   * write-back. Blocks while connecting: call at start-up.
   *
   * @throws io.playline.core.config.ConfigException when a setting is invalid, or the history
   *     topic exists with another partition count than configured
   * @throws io.playline.core.store.RetriableStoreException when Kafka does not answer in time
   */
  public static HistoryCore start(ConfigSource source, String redisUri, String kafkaBootstrapServers, String nodeId,
      MeterRegistry registry) {
    return start(source, redisUri, kafkaBootstrapServers, nodeId, registry, null, Time.SYSTEM);
  }

  /**
   * As {@link #start(ConfigSource, String, String, String, MeterRegistry)}, with the Redis
   * connections' I/O on {@code redisLoop} (a gateway I/O loop the caller owns and shuts down after
   * {@link #close()}); null gives the Redis client a thread of its own. Everything it starts reads
   * and schedules by {@code time}: the write-back's flushes, the first-today sweeps, the start-up
   * deadlines, and the read paths' server time (its wall clock).
   */
  public static HistoryCore start(ConfigSource source, String redisUri, String kafkaBootstrapServers, String nodeId,
      MeterRegistry registry, @Nullable EventLoop redisLoop, Time time) {
    CoreConfig config = CoreConfig.from(source);
    // Before anything that needs closing: the producer must not auto-create a 1-partition topic.
    KafkaTopics.ensure(kafkaBootstrapServers, config.kafkaClients(), config.kafkaTopics(), config.kafkaTopics().all(),
        time);
    RedisConnections redis = RedisConnections.connect(redisUri, config.redisCluster(), config.redisTimeout(),
        redisLoop, config.redisTopology(), time);
    KafkaProducer<byte[], byte[]> producer = null;
    WriteBackAggregator aggregator = null;
    try {
      producer = KafkaProducers.create(kafkaBootstrapServers, config.kafkaProducer(), config.kafkaClients());
      RecoveryLog recoveryLog = new RecoveryLog(redis.shared(), new RedisKeys(config.redisKeyPrefix()), registry, time);
      aggregator = new WriteBackAggregator(config, producer, new WriteBackMetrics(registry), nodeId, recoveryLog, time);
      FirstTodayOutbox outbox = new FirstTodayOutbox(redis.shared(), new RedisKeys(config.redisKeyPrefix()),
          config.firstTodayShards(), config.firstTodayOutbox(), config.redisTimeout());
      FirstTodayPublisher firstToday = new FirstTodayPublisher(config, producer, outbox,
          new FirstTodayMetrics(registry), time);
      RedisHistoryWriter writer = new RedisHistoryWriter(config, redis, aggregator, new WriteMetrics(registry, time));
      log.info("history-core up: write-back every {} to {}, first-today to {}", config.flushInterval(),
          config.historyTopic(), config.firstTodayTopic());
      return new HistoryCore(config, redisUri, redis, producer, aggregator, firstToday, writer, registry, time);
    } catch (RuntimeException e) {
      if (aggregator != null) {
        aggregator.abandon();
      }
      if (producer != null) {
        producer.close(Duration.ofSeconds(2));
      }
      redis.close();
      throw e;
    }
  }

  public CoreConfig config() {
    return config;
  }

  public RedisConnections redis() {
    return redis;
  }

  /** The write-through; call it from one thread only (the heartbeat batcher's). */
  public RedisHistoryWriter writer() {
    return writer;
  }

  public WriteBackAggregator aggregator() {
    return aggregator;
  }

  public FirstTodayPublisher firstToday() {
    return firstToday;
  }

  /**
   * Adds the read and user-control paths and returns them: a {@link TieredHistoryService} over this
   * core's Redis, write-back ({@code delete}/{@code clear} flow through it to the job) and config
   * ({@code hbase.table}, {@code history.retention*}, {@code query.*}), reading HBase through an
   * {@link HBaseClient} on the cluster {@code configuration} names, which {@link #close()} closes.
   * Connects nothing: the first read that needs HBase opens the client (bounded by {@code
   * query.hbase.timeout} x 6), so a node whose reads Redis answers never
   * runs an HBase client. Call at start-up, once.
   *
   * @throws IllegalStateException when called twice
   */
  public synchronized HistoryService attachHBase(Configuration configuration) {
    if (history != null) {
      throw new IllegalStateException("HBase already attached");
    }
    HBaseClient client = HBaseClient.lazy(configuration, config.query().hbaseTimeout().multipliedBy(CONNECT_TIMEOUTS),
        registry, time);
    hbase = client;
    HistoryService service = new TieredHistoryService(config, redis, client, TombstoneSink.of(aggregator), registry,
        time);
    history = service;
    log.info("history-core queries up: HBase table {}, retention {} (overrides {}); HBase client opens on first need",
        config.hbase().table(), config.hbase().retention(), config.hbase().retentionOverrides());
    return service;
  }

  /**
   * The read and user-control paths again, over a Redis client of their own whose connections live
   * on {@code loop} (one of the internal API's I/O loops): a backend's query is written to Redis,
   * its answer decoded and its records built there, never on the loop the core's client shares with
   * players ({@code io.redis.shared}), so a node serving both keeps a backend's work out of the
   * players' heartbeats' way and the other way round; with one per API loop, a query is answered
   * on the loop its connection lives on, without a hand-off to another. Shares the HBase client, the
   * write-back (a delete's or clear's tombstones) and the meters with {@link #history()}, and the
   * core client's timer and computation threads (it starts none). Blocks while it connects: call at
   * start-up, once per loop, after {@link #attachHBase}.
   *
   * @throws IllegalStateException before {@link #attachHBase}, after {@link #close()}, or when
   *     called twice for one loop
   */
  public synchronized HistoryService historyOn(EventLoop loop) {
    if (closed) {
      throw new IllegalStateException("historyOn() after close()");
    }
    HBaseClient client = hbase;
    if (client == null) {
      throw new IllegalStateException("historyOn() before attachHBase(): the query paths need HBase");
    }
    if (apiRedis.containsKey(loop)) {
      throw new IllegalStateException("historyOn() called twice for " + loop);
    }
    // Beside the core's client: its timer and computation threads, not a set per loop.
    RedisConnections connections = RedisConnections.connect(redisUri, config.redisCluster(), config.redisTimeout(),
        loop, config.redisTopology(), time, redis);
    apiRedis.put(loop, connections);
    return new TieredHistoryService(config, connections, client, TombstoneSink.of(aggregator), registry, time);
  }

  /**
   * The read paths' HBase client (its state, for probes); any thread.
   *
   * @throws IllegalStateException before {@link #attachHBase}
   */
  public synchronized HBaseClient hbase() {
    HBaseClient h = hbase;
    if (h == null) {
      throw new IllegalStateException("hbase() before attachHBase()");
    }
    return h;
  }

  /**
   * The read and user-control paths; any thread.
   *
   * @throws IllegalStateException before {@link #attachHBase}
   */
  public HistoryService history() {
    HistoryService h = history;
    if (h == null) {
      throw new IllegalStateException("history() before attachHBase(): the query paths need HBase");
    }
    return h;
  }

  /**
   * Flushes the write-back and the first-today queue (bounded; first-today events not acked by then
   * wait in their Redis outbox for a sweep), then closes the clients.
   */
  @Override
  public void close() {
    synchronized (this) {
      closed = true;
    }
    writer.close();
    aggregator.close();
    firstToday.close();
    producer.close(Duration.ofSeconds(5));
    closeHBase();
    closeApiRedis();
    redis.close();
  }

  private synchronized void closeHBase() {
    if (hbase != null) {
      hbase.close();
    }
  }

  private synchronized void closeApiRedis() {
    for (RedisConnections connections : apiRedis.values()) {
      try {
        connections.close();
      } catch (RuntimeException e) {
        log.warn("Closing one of the internal API's Redis clients failed; closing the rest", e);
      }
    }
    apiRedis.clear();
  }
}
