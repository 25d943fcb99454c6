package io.playline.job.consume;

import io.playline.time.Time;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs the consumer's throughput at INFO every {@code interval} (only when something happened),
 * so an operator tailing the log sees the job is moving without a line per poll.
 *
 * <p>Not thread-safe: confined to the consumer thread.
 */
final class ProgressLog {
  private static final Logger log = LoggerFactory.getLogger(HistoryConsumerLoop.class);

  private final long intervalNanos;
  private final Time time;
  private long windowStart;
  private long records;
  private long users;
  private long upserts;
  private long deletes;
  private long clears;
  private long retries;

  /** Every {@code interval} by {@code time}. */
  ProgressLog(Duration interval, Time time) {
    this.intervalNanos = interval.toNanos();
    this.time = time;
    this.windowStart = time.nanoTime();
  }

  void persisted(int polledRecords, PollPersister.Persisted p) {
    records += polledRecords;
    users += p.users();
    upserts += p.upserts();
    deletes += p.deletes();
    clears += p.clears();
    maybeLog();
  }

  void retried() {
    retries++;
  }

  /** Logs and starts a new window if the current one is over. */
  void maybeLog() {
    long now = time.nanoTime();
    long elapsed = now - windowStart;
    if (elapsed < intervalNanos) {
      return;
    }
    if (records > 0 || retries > 0) {
      double seconds = elapsed / 1e9;
      log.info("Persisted {} Kafka records ({} records/s): {} user changes, {} upserts, {} deletes, {} clears; "
          + "{} retries in the last {} s", records, String.format("%.1f", records / seconds), users, upserts,
          deletes, clears, retries, Math.round(seconds));
    }
    windowStart = now;
    records = 0;
    users = 0;
    upserts = 0;
    deletes = 0;
    clears = 0;
    retries = 0;
  }
}
