package io.playline.job.compact;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.playline.core.compact.HistoryCompactor;
import java.util.concurrent.TimeUnit;

/** Meters of the job's roll-ups ({@code playline.job.compact.*}). Thread-safe. */
final class CompactionMetrics {
  private final MeterRegistry registry;
  private final Counter moved;
  private final Counter dropped;
  private final Counter storedBytes;
  private final Counter rawBytes;
  private final Counter skipped;
  private final Counter failures;
  private final Timer duration;

  CompactionMetrics(MeterRegistry registry) {
    this.registry = registry;
    moved = Counter.builder("playline.job.compact.moved")
        .description("Live records roll-ups moved into chunks").register(registry);
    dropped = Counter.builder("playline.job.compact.dropped")
        .description("Records roll-ups dropped: deleted, past retention, or an older copy of an item").register(registry);
    storedBytes = Counter.builder("playline.job.compact.chunk.bytes").tag("form", "stored")
        .description("Bytes of the chunks roll-ups wrote, compressed (stored) and not (raw)").register(registry);
    rawBytes = Counter.builder("playline.job.compact.chunk.bytes").tag("form", "raw")
        .description("Bytes of the chunks roll-ups wrote, compressed (stored) and not (raw)").register(registry);
    skipped = Counter.builder("playline.job.compact.skipped")
        .description("Users not queued for a check because the queue (history.compact.queue) was full")
        .register(registry);
    failures = Counter.builder("playline.job.compact.failures")
        .description("Checks or roll-ups that failed (retried after the user's next records)").register(registry);
    duration = Timer.builder("playline.job.compact.duration")
        .description("Time of one check, and of the roll-up when one was needed").register(registry);
  }

  void done(HistoryCompactor.Result r, long nanos) {
    Counter.builder("playline.job.compact.checks").tag("outcome", r.outcome().name().toLowerCase())
        .description("Users checked, by outcome (not_needed, rolled_up, conflict)").register(registry).increment();
    if (r.outcome() == HistoryCompactor.Outcome.ROLLED_UP) {
      moved.increment(r.moved());
      dropped.increment(r.dropped());
      storedBytes.increment(r.storedBytes());
      rawBytes.increment(r.rawBytes());
    }
    duration.record(nanos, TimeUnit.NANOSECONDS);
  }

  void skipped() {
    skipped.increment();
  }

  void failed() {
    failures.increment();
  }
}
