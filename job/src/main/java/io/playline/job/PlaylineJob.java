package io.playline.job;

import io.micrometer.core.instrument.MeterRegistry;
import io.playline.core.compact.HistoryCompactor;
import io.playline.core.config.ClusterTopologyConfig;
import io.playline.core.config.CoreConfig;
import io.playline.core.config.HBaseLayout;
import io.playline.core.store.RedisConnections;
import io.playline.job.compact.Compactions;
import io.playline.job.config.JobConfig;
import io.playline.job.consume.HistoryConsumerLoop;
import io.playline.job.metrics.JobMetrics;
import io.playline.job.recover.RecoverySweeper;
import io.playline.job.sink.HBaseHistorySink;
import io.playline.job.sink.HistorySink;
import io.playline.job.stats.ItemCounters;
import io.playline.time.Time;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.hbase.client.Connection;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job role: consumes the write-back topic into HBase ({@link HistoryConsumerLoop}), sweeps
 * recovery marks ({@link RecoverySweeper}) and rolls heavy users up into chunks ({@link Compactions}). It borrows the Redis and HBase connections: {@link
 * #close()} stops its own threads and consumer but leaves those open for the caller to close.
 *
 * <p>{@link #start()} returns at once: the consumer thread creates the table, creates or checks
 * the history topic and connects in the background, retrying while a backend is down, and {@link #readiness()} says when it is
 * persisting. {@link #close()} is bounded by {@code job.shutdown.timeout} per thread. Thread-safe.
 */
public final class PlaylineJob implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PlaylineJob.class);

  private final JobConfig config;
  private final CoreConfig core;
  private final HistorySink sink;
  private final @Nullable Compactions compactions;
  private final HistoryConsumerLoop loop;
  private final RecoverySweeper sweeper;
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();

  /** The job over these clients; everything it runs reads the time and schedules by {@code time}. */
  public PlaylineJob(JobConfig config, CoreConfig core, RedisConnections redis, Connection hbase,
      String kafkaBootstrapServers, MeterRegistry registry, Time time) {
    this.config = config;
    this.core = core;
    JobMetrics metrics = new JobMetrics(registry, time);
    this.compactions = config.compaction().enabled()
        ? new Compactions(new HistoryCompactor(hbase, config.layout(), config.compaction().rollup(),
            time::millis), config.compaction(), registry, time)
        : null;
    this.sink = new HBaseHistorySink(hbase, config, metrics,
        compactions == null ? HBaseHistorySink.Listener.NONE : compactions::persisted, time);
    ItemCounters counters = config.itemStats()
        ? new ItemCounters(hbase, new HBaseLayout(config.table(), config.family(), config.retention(),
            config.retentionOverrides()), config.itemStatsFinishPercent(), config.hbaseOperationTimeout(),
            config.tableRegions(), time::millis)
            .lastViewGranularity(config.itemStatsLastViewGranularity())
        : null;
    this.loop = new HistoryConsumerLoop(config, core, kafkaBootstrapServers, sink, counters, redis, metrics, time);
    this.sweeper = new RecoverySweeper(config, core, redis, sink, metrics, loop::sinkPrepared, time);
  }

  /**
   * Connects the job's Redis client, whose command timeout is {@code job.redis.timeout}: the bound
   * the job's read-back, recovery marks and leases wait for, which a client built with another
   * process's {@code redis.timeout} would cut short. Blocks while connecting: call at start-up.
   *
   * @param cluster whether {@code uri} is one seed node of a Redis Cluster
   * @param topology how a cluster client follows the cluster's topology
   */
  public static RedisConnections connectRedis(JobConfig config, String uri, boolean cluster,
      ClusterTopologyConfig topology, Time time) {
    return RedisConnections.connect(uri, cluster, config.redisTimeout(), null, topology, time);
  }

  /** Starts the consumer loop and the recovery sweep; returns without waiting for backends. Once only. */
  public void start() {
    if (closed.get() || !started.compareAndSet(false, true)) {
      throw new IllegalStateException("PlaylineJob already " + (closed.get() ? "closed" : "started"));
    }
    loop.start();
    sweeper.start();
    if (compactions != null) {
      compactions.start();
    }
    log.info("Job started: topic {} -> HBase {} (group {}, retention {}, overrides {})", core.historyTopic(),
        config.table(), config.groupId(), config.retention(), config.retentionOverrides());
  }

  /**
   * True while the job persists: started, the table is ready and the consumer loop is neither
   * retrying a failed poll nor stopped. Never blocks.
   */
  public boolean readiness() {
    return started.get() && !closed.get() && loop.ready();
  }

  /** The recovery sweeper, e.g. to run a sweep now from an admin tool. */
  public RecoverySweeper sweeper() {
    return sweeper;
  }

  /** Stops the consumer (an in-flight poll finishes and commits, or is abandoned uncommitted) and the sweep. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    log.info("Stopping the job");
    loop.requestStop();
    try {
      loop.close();
    } finally {
      try {
        sweeper.close();
      } finally {
        try {
          if (compactions != null) {
            compactions.close();
          }
        } finally {
          sink.close();
        }
      }
    }
    log.info("Job stopped");
  }
}
