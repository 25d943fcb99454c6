package io.playline.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.time.FixedDelay;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link FixedDelay} on a {@link ManualTime}: runs only when time reaches each delay, and never after cancel. */
class FixedDelayTest {
  private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
  private final ManualTime time = new ManualTime();
  private final AtomicInteger runs = new AtomicInteger();

  @AfterEach
  void stop() {
    executor.shutdownNow();
  }

  /** Moves time by {@code millis} and waits until the executor ran what fell due. */
  private void advance(long millis) throws Exception {
    time.advance(Duration.ofMillis(millis));
    executor.submit(() -> { }).get(10, TimeUnit.SECONDS);
  }

  @Test
  void runsFirstAfterTheInitialDelayThenEveryDelayAfterTheLastRun() throws Exception {
    FixedDelay.start(time, executor, runs::incrementAndGet, 50, 100, TimeUnit.MILLISECONDS);
    advance(49);
    assertThat(runs).hasValue(0);
    advance(1);
    assertThat(runs).hasValue(1);
    advance(99);
    assertThat(runs).hasValue(1);
    advance(1);
    assertThat(runs).hasValue(2);
    assertThat(time.pending()).isEqualTo(1);
  }

  @Test
  void cancelStopsTheChain() throws Exception {
    FixedDelay d = FixedDelay.start(time, executor, runs::incrementAndGet, 10, 10, TimeUnit.MILLISECONDS);
    advance(10);
    d.cancel();
    advance(100);
    assertThat(runs).hasValue(1);
    assertThat(time.pending()).isZero();
  }

  @Test
  void aRunThatThrowsEndsTheChain() throws Exception {
    FixedDelay.start(time, executor, () -> {
      runs.incrementAndGet();
      throw new IllegalStateException("boom");
    }, 10, 10, TimeUnit.MILLISECONDS);
    advance(10);
    advance(100);
    assertThat(runs).hasValue(1);
    assertThat(time.pending()).isZero();
  }
}
