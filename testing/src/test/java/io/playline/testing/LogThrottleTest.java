package io.playline.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.playline.time.LogThrottle;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link LogThrottle} on a {@link ManualTime}: the first event at once, then one line per interval with its count. */
class LogThrottleTest {
  private final ManualTime time = new ManualTime();

  @Test
  void reportsTheFirstEventAtOnceThenOneLinePerIntervalCountingWhatItHeldBack() {
    LogThrottle lines = new LogThrottle(time, Duration.ofSeconds(10));
    assertThat(lines.count()).as("the first event, at once").isEqualTo(1);
    for (int i = 0; i < 999; i++) {
      assertThat(lines.count()).isZero();
    }
    time.advance(Duration.ofSeconds(10).minusNanos(1));
    assertThat(lines.count()).as("still within the interval").isZero();
    time.advance(Duration.ofNanos(1));
    assertThat(lines.count()).as("the 1 000 held back and this one").isEqualTo(1_001);
    time.advance(Duration.ofMinutes(1));
    assertThat(lines.count()).as("after a quiet minute, at once").isEqualTo(1);
    assertThat(lines.interval()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void grantsOneLinePerIntervalAsTheClockMoves() {
    LogThrottle warnings = new LogThrottle(time);
    int granted = 0;
    for (int second = 0; second < 60; second++) {
      for (int event = 0; event < 5; event++) {
        granted += warnings.tryAcquire() ? 1 : 0;
      }
      time.advance(Duration.ofSeconds(1));
    }
    assertThat(granted).as("a minute of events at 5/s, one line per 10 s").isEqualTo(6);
  }

  @Test
  void grantsExactlyOneOfEventsRacingAtADueTime() throws Exception {
    LogThrottle warnings = new LogThrottle(time);
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch start = new CountDownLatch(1);
      AtomicLong granted = new AtomicLong();
      Future<?>[] racers = new Future<?>[threads];
      for (int t = 0; t < threads; t++) {
        racers[t] = pool.submit(() -> {
          start.await();
          for (int i = 0; i < 10_000; i++) {
            granted.addAndGet(warnings.tryAcquire() ? 1 : 0);
          }
          return null;
        });
      }
      start.countDown();
      for (Future<?> r : racers) {
        r.get(10, TimeUnit.SECONDS);
      }
      assertThat(granted).as("the clock stood still").hasValue(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void refusesAnIntervalThatIsNotPositive() {
    assertThatThrownBy(() -> new LogThrottle(time, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
  }
}
