package io.playline.job.consume;

import io.playline.job.metrics.JobMetrics;
import io.playline.time.Time;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last step of a poll: commits its offsets once the sink accepted all of it. A failed commit
 * only means redelivery (writes are idempotent), so it is counted and logged, never retried.
 * Used on the consumer loop's thread only.
 */
final class OffsetCommits {
  private static final Logger log = LoggerFactory.getLogger(OffsetCommits.class);
  private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(10);

  private final JobMetrics metrics;
  private final Time time;

  /** Commits are timed by {@code time}. */
  OffsetCommits(JobMetrics metrics, Time time) {
    this.metrics = metrics;
    this.time = time;
  }

  /**
   * Commits the offsets of {@code poll} on the partitions {@code c} still owns; false when the loop
   * was asked to stop meanwhile (the offsets are then committed once more before it does).
   */
  boolean commit(Consumer<byte[], byte[]> c, InFlightPoll poll) {
    Map<TopicPartition, OffsetAndMetadata> offsets = poll.offsets(c.assignment());
    if (offsets.isEmpty()) {
      return true;
    }
    long start = time.nanoTime();
    try {
      c.commitSync(offsets, COMMIT_TIMEOUT);
      metrics.commit(time.nanoTime() - start);
    } catch (WakeupException e) {
      // close() raced with a poll that is already persisted: record that once more, then stop.
      log.info("Stopping right after a persisted poll; committing its offsets first");
      commitQuietly(c, offsets);
      return false;
    } catch (KafkaException e) {
      metrics.commitFailure();
      log.warn("Committing offsets {} failed; those records will be redelivered and persisted again "
          + "(harmless, writes are idempotent): {}", offsets, e.toString());
    }
    return true;
  }

  private void commitQuietly(Consumer<byte[], byte[]> c, Map<TopicPartition, OffsetAndMetadata> offsets) {
    try {
      c.commitSync(offsets, COMMIT_TIMEOUT);
    } catch (KafkaException e) {
      metrics.commitFailure();
      log.warn("Committing offsets {} at shutdown failed; they are redelivered: {}", offsets, e.toString());
    }
  }
}
