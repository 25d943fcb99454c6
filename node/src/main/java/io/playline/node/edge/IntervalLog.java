package io.playline.node.edge;

import io.playline.time.Time;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Log volume a client can cause, bounded: events that each client may trigger at will (a connection
 * closed because it stopped reading, a stream error) are counted here and reported in one line at
 * most once per interval, with how many happened since the last line. The first event is reported
 * at once. Thread-safe and lock-free: one increment and one clock read per event.
 */
public final class IntervalLog {
  /** The interval of the node's client-caused summaries. */
  public static final long DEFAULT_INTERVAL_SECONDS = 10;

  private final long intervalNanos;
  private final LongSupplier nanoClock;
  private final AtomicLong unlogged = new AtomicLong();
  private final AtomicLong nextLogNanos;

  public IntervalLog(long intervalSeconds, LongSupplier nanoClock) {
    this.intervalNanos = TimeUnit.SECONDS.toNanos(intervalSeconds);
    this.nanoClock = nanoClock;
    this.nextLogNanos = new AtomicLong(nanoClock.getAsLong());
  }

  /**
   * Every {@value #DEFAULT_INTERVAL_SECONDS} s of {@link Time#SYSTEM}: for a process-wide static
   * summary (one for all nodes of a JVM, made before any node), which no node's time can drive.
   */
  public IntervalLog() {
    this(DEFAULT_INTERVAL_SECONDS, Time.SYSTEM::nanoTime);
  }

  /**
   * Counts one event: the number of events the caller's line should report (this one and those not
   * reported since the last line) when a line is due now, else 0 (log nothing).
   */
  public long count() {
    long pending = unlogged.incrementAndGet();
    long now = nanoClock.getAsLong();
    long next = nextLogNanos.get();
    if (now - next >= 0 && nextLogNanos.compareAndSet(next, now + intervalNanos)) {
      unlogged.addAndGet(-pending);
      return pending;
    }
    return 0;
  }

  /** The interval in whole seconds, for the line's text. */
  public long intervalSeconds() {
    return TimeUnit.NANOSECONDS.toSeconds(intervalNanos);
  }
}
