package io.playline.job.consume;

import io.playline.core.config.CoreConfig;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RetriableStoreException;
import io.playline.job.config.JobConfig;
import io.playline.job.metrics.JobMetrics;
import io.playline.job.sink.HistorySink;
import io.playline.job.stats.ItemCounters;
import io.playline.time.Time;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes the write-back topic and persists it: polls a batch of records, persists all of it
 * ({@link PollPersister}), commits the poll's offsets only after the sink accepted the whole poll,
 * then clears the recovery marks it covered. A transient failure (Redis or HBase down) retries the
 * same poll with exponential back-off and jitter — never skipping it, never committing early —
 * while the consumer stays in its group (its partitions paused, polling as the back-off wait). A
 * record that is not a {@code HistoryChangeBatch} is logged, counted and skipped. A failure of the
 * Kafka consumer itself (brokers restarting can answer with errors such as {@code
 * UnsupportedVersionException} for a moment) closes that consumer, abandons its uncommitted poll
 * (redelivered) and opens a new one after the same back-off. Any other failure stops the loop
 * without committing the poll ({@link #ready()} turns false) so a restart resumes from the last
 * commit.
 *
 * <p>Runs on its own thread, which alone creates and uses the {@link KafkaConsumer}; {@link
 * #start()}, {@link #ready()} and {@link #close()} may be called from any thread.
 */
public final class HistoryConsumerLoop implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HistoryConsumerLoop.class);
  private static final Duration CONSUMER_CLOSE_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(30);

  private final JobConfig config;
  private final CoreConfig core;
  private final ConsumerStartup startup;
  private final Map<String, Object> consumerProperties;
  private final JobMetrics metrics;
  private final OffsetCommits commits;
  private final Time time;
  private final Thread thread;
  private final java.util.function.Function<Map<String, Object>, Consumer<byte[], byte[]>> consumers;
  private final CountDownLatch stopRequested = new CountDownLatch(1);
  private volatile boolean running = true;
  private volatile boolean prepared;
  private volatile boolean sinkPrepared;
  private volatile boolean retrying;
  private volatile boolean failed;
  private volatile @Nullable Consumer<byte[], byte[]> consumer;
  // Consumer-thread state, also touched by rebalance callbacks (which run inside poll on that thread).
  private @Nullable InFlightPoll inFlight;
  private boolean pausedForRetry;

  public HistoryConsumerLoop(JobConfig config, CoreConfig core, String bootstrapServers, HistorySink sink,
      RedisConnections redis, JobMetrics metrics, Time time) {
    this(config, core, bootstrapServers, sink, null, redis, metrics, time);
  }

  /** As above, also counting each persisted poll's records into {@code counters} (null: no counters). */
  public HistoryConsumerLoop(JobConfig config, CoreConfig core, String bootstrapServers, HistorySink sink,
      @Nullable ItemCounters counters, RedisConnections redis, JobMetrics metrics, Time time) {
    this(config, core, bootstrapServers, sink, counters, redis, metrics, time,
        p -> new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer()));
  }

  /** As above, with the consumers created by {@code consumers} (tests wrap the real one to inject failures). */
  HistoryConsumerLoop(JobConfig config, CoreConfig core, String bootstrapServers, HistorySink sink,
      RedisConnections redis, JobMetrics metrics, Time time,
      java.util.function.Function<Map<String, Object>, Consumer<byte[], byte[]>> consumers) {
    this(config, core, bootstrapServers, sink, null, redis, metrics, time, consumers);
  }

  private HistoryConsumerLoop(JobConfig config, CoreConfig core, String bootstrapServers, HistorySink sink,
      @Nullable ItemCounters counters, RedisConnections redis, JobMetrics metrics, Time time,
      java.util.function.Function<Map<String, Object>, Consumer<byte[], byte[]>> consumers) {
    this.consumers = consumers;
    this.time = time;
    this.config = config;
    this.core = core;
    this.startup = new ConsumerStartup(config, core, bootstrapServers, sink, counters, redis, metrics, time);
    this.consumerProperties = startup.consumerProperties();
    this.metrics = metrics;
    this.commits = new OffsetCommits(metrics, time);
    this.thread = new Thread(this::run, "playline-job-consumer");
  }

  /** Starts the loop's thread: it prepares the sink (retrying while the store is down), then consumes. */
  public void start() {
    thread.start();
  }

  /** True once the sink is prepared (the table exists), until the loop stops. */
  public boolean prepared() {
    return prepared && !failed;
  }

  /**
   * True once the sink was prepared, whatever became of the loop since: the recovery sweep needs
   * only the sink, and keeps persisting while the consumer is down or stopped on a failure.
   */
  public boolean sinkPrepared() {
    return sinkPrepared;
  }

  /** True while the loop runs and persists: prepared, not retrying a failed poll, not stopped. */
  public boolean ready() {
    return prepared && running && !retrying && !failed && thread.isAlive();
  }

  /** True when the loop stopped on a failure that retrying cannot fix. */
  public boolean failed() {
    return failed;
  }

  private void run() {
    try {
      PollPersister persister = startUp();
      if (persister == null) {
        return;
      }
      try (persister) {
        prepared = true;
        consumeReconnecting(persister);
      }
    } catch (RuntimeException e) {
      stopOnFailure(e);
    } catch (Error e) {
      stopOnFailure(e);
      throw e;
    } finally {
      log.info("Consumer loop of topic {} stopped", core.historyTopic());
    }
  }

  private void stopOnFailure(Throwable e) {
    failed = true;
    metrics.fatalFailure();
    log.error("The consumer loop stopped on a failure retrying cannot fix: {}. The poll in flight was not "
        + "committed, so nothing is lost: fix the cause and restart the job to resume from the last commit",
        e.toString(), e);
  }

  /**
   * Prepares what the first poll needs ({@link ConsumerStartup}), retrying transient failures until
   * done or closed.
   */
  private @Nullable PollPersister startUp() {
    RetryBackoff backoff = new RetryBackoff(config.retryBackoffBase(), config.retryBackoffCap());
    while (running) {
      try {
        return startup.attempt(() -> sinkPrepared = true);
      } catch (RetriableStoreException e) {
        Duration delay = backoff.next();
        log.warn("Preparing the consumer loop failed (attempt {}); retrying in {} ms: {}", backoff.attempts(),
            delay.toMillis(), e.toString());
        awaitStop(delay);
      }
    }
    return null;
  }

  /**
   * Consumes with one consumer after another: a {@link KafkaException} from the consumer (not a
   * wake-up to stop) closes it, abandons its uncommitted poll and opens a new one after a back-off.
   */
  private void consumeReconnecting(PollPersister persister) {
    RetryBackoff backoff = new RetryBackoff(config.retryBackoffBase(), config.retryBackoffCap());
    while (running) {
      try {
        consume(persister, backoff);
      } catch (WakeupException e) {
        return;
      } catch (KafkaException e) {
        if (!running) {
          return;
        }
        InFlightPoll abandoned = inFlight;
        inFlight = null;
        pausedForRetry = false;
        retrying = true;
        metrics.consumerRestart();
        Duration delay = backoff.next();
        log.warn("The Kafka consumer failed (attempt {}): {}; it is closed{} and a new one opens in {} ms",
            backoff.attempts(), e.toString(),
            abandoned == null ? "" : ", its uncommitted poll of " + abandoned.records() + " records is redelivered",
            delay.toMillis(), backoff.attempts() == 1 ? e : null);
        awaitStop(delay);
      }
    }
  }

  private void consume(PollPersister persister, RetryBackoff reconnects) {
    Consumer<byte[], byte[]> c = consumers.apply(consumerProperties);
    consumer = c;
    try {
      if (!running) {
        return;
      }
      c.subscribe(List.of(core.historyTopic()), new PartitionRebalance(c, metrics, () -> inFlight, () -> pausedForRetry));
      log.info("Consuming {} as group {} (up to {} records per poll)", core.historyTopic(), config.groupId(),
          config.maxPollRecords());
      pollLoop(c, persister, reconnects);
    } catch (WakeupException e) {
      InFlightPoll abandoned = inFlight;
      log.info("Consumer loop woken up to stop{}", abandoned == null ? ""
          : "; abandoned an uncommitted poll of " + abandoned.records() + " records (it is redelivered)");
      throw e;
    } finally {
      consumer = null;
      closeQuietly(c);
    }
  }

  private void pollLoop(Consumer<byte[], byte[]> c, PollPersister persister, RetryBackoff reconnects) {
    ProgressLog progress = new ProgressLog(PROGRESS_INTERVAL, time);
    while (running) {
      ConsumerRecords<byte[], byte[]> polled = c.poll(config.pollTimeout());
      if (reconnects.attempts() > 0) {
        log.info("The Kafka consumer works again after {} restarts", reconnects.attempts());
        reconnects.reset();
        retrying = false;
      }
      if (polled.isEmpty()) {
        reportLag(c);
        progress.maybeLog();
        continue;
      }
      InFlightPoll poll = InFlightPoll.parse(polled, metrics);
      inFlight = poll;
      reportLag(c);
      metrics.unpersistedSince(poll.oldestTimestampMs());
      PollPersister.Persisted persisted = persistWithRetry(c, persister, poll, progress);
      metrics.unpersistedSince(Long.MAX_VALUE);
      if (persisted == null) {
        inFlight = null;
        continue;
      }
      if (!commits.commit(c, poll)) {
        running = false;
      }
      inFlight = null;
      persister.clearMarks(persisted);
      progress.persisted(poll.records(), persisted);
      log.debug("Persisted a poll of {} records: {} user changes", poll.records(), persisted.users());
    }
  }

  /**
   * Publishes the records behind the end of this consumer's partitions, from what the consumer last
   * fetched (no remote call); the poll in flight counts as behind until it is persisted.
   */
  private void reportLag(Consumer<byte[], byte[]> c) {
    InFlightPoll poll = inFlight;
    long lag = poll == null ? 0 : poll.records();
    for (TopicPartition tp : c.assignment()) {
      OptionalLong partitionLag = c.currentLag(tp);
      if (partitionLag.isPresent()) {
        lag += partitionLag.getAsLong();
      }
    }
    metrics.lag(lag);
  }

  /** Persists {@code poll}, retrying transient failures; null when stopping or nothing is left (all revoked). */
  private PollPersister.@Nullable Persisted persistWithRetry(Consumer<byte[], byte[]> c, PollPersister persister,
      InFlightPoll poll, ProgressLog progress) {
    RetryBackoff backoff = new RetryBackoff(config.retryBackoffBase(), config.retryBackoffCap());
    try {
      while (running && !poll.isEmpty()) {
        try {
          PollPersister.Persisted persisted = persister.persist(poll);
          if (backoff.attempts() > 0) {
            log.info("Persisting works again after {} retries", backoff.attempts());
          }
          return persisted;
        } catch (RetriableStoreException e) {
          metrics.retry();
          progress.retried();
          retrying = true;
          Duration delay = backoff.next();
          if (backoff.attempts() == 1) {
            log.warn("Persisting a poll of {} records failed; retrying in {} ms", poll.records(), delay.toMillis(), e);
          } else {
            log.warn("Persisting a poll of {} records failed again (attempt {}); retrying in {} ms: {}",
                poll.records(), backoff.attempts(), delay.toMillis(), e.toString());
          }
          waitPolling(c, delay);
        }
      }
      return null;
    } finally {
      endRetry(c);
    }
  }

  /**
   * Waits {@code delay} inside {@code poll} with every partition paused, so the consumer keeps its
   * group membership (and learns of rebalances) without fetching; {@code wakeup()} ends the wait.
   */
  private void waitPolling(Consumer<byte[], byte[]> c, Duration delay) {
    pausedForRetry = true;
    c.pause(c.assignment());
    ConsumerRecords<byte[], byte[]> stray = c.poll(delay);
    reportLag(c);
    // Paused partitions return nothing; should a record slip through, rewind so none is skipped.
    for (TopicPartition tp : stray.partitions()) {
      c.seek(tp, stray.records(tp).get(0).offset());
    }
  }

  private void endRetry(Consumer<byte[], byte[]> c) {
    if (pausedForRetry) {
      c.resume(c.paused());
      pausedForRetry = false;
    }
    retrying = false;
  }

  private static void closeQuietly(Consumer<byte[], byte[]> c) {
    try {
      c.close(CloseOptions.timeout(CONSUMER_CLOSE_TIMEOUT));
    } catch (KafkaException e) {
      log.warn("Closing the Kafka consumer failed: {}", e.toString());
    }
  }

  private void awaitStop(Duration delay) {
    try {
      stopRequested.await(delay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  /** Asks the loop to stop and wakes its consumer; returns at once. */
  public void requestStop() {
    running = false;
    stopRequested.countDown();
    Consumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
  }

  /**
   * Stops the loop within {@code job.shutdown.timeout}: wakes the consumer, lets an in-flight poll
   * finish (its offsets are then committed) or abandons it uncommitted, and closes the consumer.
   */
  @Override
  public void close() {
    requestStop();
    if (thread.isAlive() && thread != Thread.currentThread()) {
      try {
        thread.join(config.shutdownTimeout().toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (thread.isAlive()) {
        log.warn("The consumer loop did not stop within {}; it stops after its current store call",
            config.shutdownTimeout());
      }
    }
  }
}
