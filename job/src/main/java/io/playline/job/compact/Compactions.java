package io.playline.job.compact;

import io.micrometer.core.instrument.MeterRegistry;
import io.playline.core.compact.HistoryCompactor;
import io.playline.job.config.JobConfig;
import io.playline.time.Time;
import java.io.IOException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whom to roll up: counts the entries (upserts, deletes, clears) the job persisted per
 * user and, after every {@code history.compact.check.every} of one user, queues that user for a
 * check on one background thread, which reads the user's live cells and rolls them up when past
 * {@code history.compact.threshold} or when deletes wait to be folded ({@link HistoryCompactor}).
 * A user's count is an upper bound of the items it added (an item written again counts again), so a
 * check may find nothing to do; a failed check is retried after the user's next records.
 *
 * <p>Memory is bounded: at most {@code history.compact.tracked.users} users are counted (when full,
 * those with fewer records than the average are forgotten, so heavy users keep their counts) and
 * {@code history.compact.queue} wait. Job instances split users by Kafka partition, so one user is
 * normally rolled up by one instance; two that overlap during a rebalance are safe (the roll-up's
 * index write is a check-and-mutate).
 *
 * <p>Thread-safe: the consumer and the recovery sweep both report what they persisted.
 */
public final class Compactions implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Compactions.class);

  private final HistoryCompactor compactor;
  private final JobConfig.Compaction config;
  private final CompactionMetrics metrics;
  private final Time time;
  // Guarded by this.
  private final Map<Long, int[]> counts = new HashMap<>();
  private final BlockingQueue<Long> queue;
  private final Set<Long> queued = ConcurrentHashMap.newKeySet();
  private final Thread worker;
  private volatile boolean stopping;

  /** Roll-ups are timed by {@code time}. */
  public Compactions(HistoryCompactor compactor, JobConfig.Compaction config, MeterRegistry registry, Time time) {
    this.compactor = compactor;
    this.time = time;
    this.config = config;
    this.metrics = new CompactionMetrics(registry);
    this.queue = new ArrayBlockingQueue<>(config.queue());
    this.worker = new Thread(this::run, "playline-compactor");
    this.worker.setDaemon(true);
  }

  public void start() {
    worker.start();
  }

  /** {@code records} upserts of {@code uid} were persisted. Never blocks. */
  public synchronized void persisted(long uid, int records) {
    if (records <= 0) {
      return;
    }
    int[] count = counts.get(uid);
    if (count == null) {
      if (counts.size() >= config.trackedUsers()) {
        forgetLightUsers();
      }
      count = new int[1];
      counts.put(uid, count);
    }
    count[0] += records;
    if (count[0] < config.checkEvery()) {
      return;
    }
    counts.remove(uid);
    if (queued.add(uid)) {
      if (!queue.offer(uid)) {
        queued.remove(uid);
        metrics.skipped();
      }
    }
  }

  /** Users counted now (for tests and the status page). */
  synchronized int tracked() {
    return counts.size();
  }

  private void forgetLightUsers() {
    long sum = 0;
    for (int[] c : counts.values()) {
      sum += c[0];
    }
    double average = (double) sum / counts.size();
    int before = counts.size();
    for (Iterator<int[]> it = counts.values().iterator(); it.hasNext(); ) {
      if (it.next()[0] <= average) {
        it.remove();
      }
    }
    log.debug("Roll-up candidates full ({} users): forgot {} with at most {} records", before,
        before - counts.size(), (long) average);
  }

  private void run() {
    while (!stopping) {
      Long uid;
      try {
        uid = queue.poll(1, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        return;
      }
      if (uid == null) {
        continue;
      }
      queued.remove(uid);
      long start = time.nanoTime();
      try {
        HistoryCompactor.Result r = compactor.compact(uid, false);
        metrics.done(r, time.nanoTime() - start);
        if (r.outcome() == HistoryCompactor.Outcome.ROLLED_UP) {
          log.info("Rolled up uid {}: {} of {} live records moved, {} dropped; version {} has {} records in {} "
              + "chunks ({} bytes, {} raw) in {} ms", uid, r.moved(), r.live(), r.dropped(), r.version(), r.chunked(),
              r.chunks(), r.storedBytes(), r.rawBytes(), TimeUnit.NANOSECONDS.toMillis(time.nanoTime() - start));
        }
      } catch (IOException | RuntimeException e) {
        metrics.failed();
        log.warn("Roll-up check of uid {} failed (retried after its next records): {}", uid, e.toString());
      } catch (Error e) {
        // E.g. out of memory on a huge history: this roll-up is lost, the worker and the job go on.
        metrics.failed();
        log.error("Roll-up of uid {} failed (retried after its next records)", uid, e);
      }
    }
  }

  /** Stops the worker after the roll-up in progress (bounded by its HBase timeouts). */
  @Override
  public void close() {
    stopping = true;
    worker.interrupt();
    try {
      worker.join(config.rollup().timeout().toMillis() * 4);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
