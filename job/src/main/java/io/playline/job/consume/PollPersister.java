package io.playline.job.consume;

import io.lettuce.core.RedisException;
import io.lettuce.core.api.StatefulConnection;
import io.playline.core.config.CoreConfig;
import io.playline.core.stats.ItemStatsLayout;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.core.store.RetriableStoreException;
import io.playline.job.config.JobConfig;
import io.playline.job.metrics.JobMetrics;
import io.playline.job.redis.RecoveryMarks;
import io.playline.job.redis.RedisReadBack;
import io.playline.job.sink.HistorySink;
import io.playline.job.stats.ItemCounters;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryRecord;
import io.playline.time.Time;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Persists one poll: resolves its changes ({@link ChangeResolver}), reads the current records back
 * from Redis in one pipelined round trip, writes the result to the sink and, once that is done,
 * clears the recovery marks the poll covered.
 *
 * <p>Confined to the consumer thread: owns a pipelining Redis connection.
 */
final class PollPersister implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PollPersister.class);

  /** What one persisted poll wrote, for the progress log and the mark clears. */
  record Persisted(ChangeResolver resolver, int users, int upserts, int deletes, int clears) {}

  private final HistorySink sink;
  private final @Nullable ItemCounters counters;
  /** The history topic's Kafka topic id: part of the counters' stream names. */
  private final String topicId;
  private final JobMetrics metrics;
  private final StatefulConnection<byte[], byte[]> pipeline;
  private final RedisReadBack readBack;
  private final RecoveryMarks marks;

  /**
   * Opens the loop's own pipelining Redis connection.
   *
   * @throws RetriableStoreException when Redis cannot be reached now
   */
  PollPersister(RedisConnections redis, CoreConfig core, JobConfig config, HistorySink sink,
      @Nullable ItemCounters counters, String topicId, JobMetrics metrics, Time time) {
    this.sink = sink;
    this.counters = counters;
    this.topicId = topicId;
    this.metrics = metrics;
    RedisKeys keys = new RedisKeys(core.redisKeyPrefix());
    try {
      this.pipeline = redis.newPipeline();
    } catch (RedisException e) {
      throw new RetriableStoreException("Redis connect for the consumer loop failed", e);
    }
    this.readBack = new RedisReadBack(pipeline, keys, config.redisTimeout(), time);
    this.marks = new RecoveryMarks(pipeline, redis.shared(), keys, core.recoveryShards(), config.redisTimeout(),
        time);
  }

  /**
   * Writes {@code poll} to the sink and returns once the sink accepted all of it.
   *
   * @throws RetriableStoreException when Redis or the sink failed for now; retry the same poll
   */
  Persisted persist(InFlightPoll poll) {
    ChangeResolver resolver = new ChangeResolver(metrics);
    for (InFlightPoll.Parsed p : poll.batches()) {
      resolver.add(p.batch());
    }
    RedisReadBack.Current current = readBack.readWithTombstones(resolver.itemsToRead());
    List<HistoryChange> writes = resolver.resolve(current.records(), current.tombstones(), current.floors());
    if (!writes.isEmpty()) {
      sink.write(writes);
    }
    if (counters != null) {
      // After the history: a failure retries the whole poll, and the counters skip what they hold.
      List<ItemCounters.Input> inputs = new ArrayList<>();
      for (InFlightPoll.Parsed p : poll.batches()) {
        for (HistoryChange change : p.batch().getChangesList()) {
          for (HistoryRecord r : change.getUpsertsList()) {
            inputs.add(new ItemCounters.Input(ItemStatsLayout.stream(topicId, p.partition().partition()), p.offset(),
                change.getUid(), r));
          }
        }
      }
      ItemCounters.Applied applied = counters.apply(inputs);
      metrics.itemCounters(applied.items(), applied.viewers(), applied.finishes(), applied.conflicts(),
          applied.skipped());
    }
    int upserts = 0;
    int deletes = 0;
    int clears = 0;
    for (HistoryChange c : writes) {
      upserts += c.getUpsertsCount();
      deletes += c.getDeletesCount();
      clears += c.getClearsCount();
    }
    return new Persisted(resolver, writes.size(), upserts, deletes, clears);
  }

  /**
   * Clears the recovery marks of a persisted poll ({@link ChangeResolver#addMarkClears}).
   * Best effort: a failure is logged and counted, and the recovery sweep persists those items
   * again later (harmless: writes are idempotent).
   */
  void clearMarks(Persisted persisted) {
    RecoveryMarks.Clears clears = marks.newClears();
    persisted.resolver().addMarkClears(clears);
    if (clears.size() == 0) {
      return;
    }
    try {
      metrics.marksClearedByConsumer(marks.clear(clears));
    } catch (RetriableStoreException | IllegalStateException e) {
      metrics.markClearFailure();
      log.warn("Clearing {} recovery marks failed; the recovery sweep will persist those items again: {}",
          clears.size(), e.toString());
    }
  }

  @Override
  public void close() {
    pipeline.close();
  }
}
