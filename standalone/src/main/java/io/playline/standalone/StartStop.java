package io.playline.standalone;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Whether a start that failed was stopped by Ctrl-C or SIGTERM. A terminal sends Ctrl-C to the whole
 * process group: a child being started at that moment (the helper the JVM forks to run
 * {@code redis-server}) dies of it too, and its failure can reach the start before the JVM has run the
 * signal's handler. So a failure is read as a stop when the stop had been asked for, or when a signal
 * arrives within a short grace after the failure.
 */
final class StartStop {
  /** How long a failed start waits for a signal that may have caused it before it is reported as a failure. */
  static final Duration SIGNAL_GRACE = Duration.ofSeconds(2);

  private final CountDownLatch signalled = new CountDownLatch(1);
  private final AtomicReference<@Nullable String> signal = new AtomicReference<>();

  /** Called by the signal handler with the signal's name ({@code INT} or {@code TERM}). */
  void received(String name) {
    signal.compareAndSet(null, name);
    signalled.countDown();
  }

  /** The first signal received, if any. */
  @Nullable String signal() {
    return signal.get();
  }

  /**
   * True when {@code failure} is the start stopping because a stop was asked for: the launcher says so,
   * the JVM is shutting down, or a signal arrives within {@code grace} (returns as soon as it does).
   */
  boolean explains(RuntimeException failure, Duration grace) throws InterruptedException {
    if (failure instanceof StandaloneLauncher.StoppedDuringStartException) {
      return true;
    }
    if (failure instanceof IllegalStateException && String.valueOf(failure.getMessage()).contains("Shutdown in progress")) {
      return true;
    }
    return signalled.await(grace.toMillis(), TimeUnit.MILLISECONDS);
  }
}
