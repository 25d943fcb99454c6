package io.playline.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ManualTimeTest {
  /** Where the tasks run; its own timers are never used. */
  private final ScheduledExecutorService direct = Executors.newSingleThreadScheduledExecutor();
  private final List<String> ran = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    direct.shutdownNow();
  }

  private void drained() throws Exception {
    direct.submit(() -> { }).get(10, TimeUnit.SECONDS); // the executor ran everything handed to it before
  }

  @Test
  void wallAndMonotonicTimeMoveTogetherOnlyWhenAdvanced() {
    ManualTime time = new ManualTime(Instant.ofEpochMilli(1_000));
    long nanos = time.nanoTime();
    assertThat(time.millis()).isEqualTo(1_000);
    time.advance(Duration.ofMillis(1_500));
    assertThat(time.millis()).isEqualTo(2_500);
    assertThat(time.instant()).isEqualTo(Instant.ofEpochMilli(2_500));
    assertThat(time.clock().millis()).isEqualTo(2_500);
    assertThat(time.nanoTime() - nanos).isEqualTo(1_500_000_000L);
    assertThatThrownBy(() -> time.advance(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void tasksRunOnTheirExecutorWhenTheirDeadlineIsReachedInDeadlineOrder() throws Exception {
    ManualTime time = new ManualTime();
    time.schedule(direct, () -> ran.add("b"), 20, TimeUnit.MILLISECONDS);
    time.schedule(direct, () -> ran.add("a"), 10, TimeUnit.MILLISECONDS);
    time.schedule(direct, () -> ran.add("c"), 20, TimeUnit.MILLISECONDS);
    time.schedule(direct, () -> ran.add("now"), 0, TimeUnit.MILLISECONDS);
    drained();
    assertThat(ran).containsExactly("now");
    time.advance(Duration.ofMillis(9));
    drained();
    assertThat(ran).containsExactly("now");
    assertThat(time.pending()).isEqualTo(3);
    time.advance(Duration.ofMillis(11));
    drained();
    assertThat(ran).containsExactly("now", "a", "b", "c");
    assertThat(time.pending()).isZero();
    assertThat(time.ran()).isEqualTo(4);
  }

  @Test
  void aCancelledTaskNeverRuns() throws Exception {
    ManualTime time = new ManualTime();
    ScheduledFuture<?> f = time.schedule(direct, () -> ran.add("x"), 1, TimeUnit.SECONDS);
    assertThat(f.getDelay(TimeUnit.MILLISECONDS)).isEqualTo(1_000);
    assertThat(f.cancel(false)).isTrue();
    assertThat(f.isCancelled()).isTrue();
    time.advance(Duration.ofSeconds(2));
    drained();
    assertThat(ran).isEmpty();
    assertThat(time.pending()).isZero();
  }

  @Test
  void aWaitTimesOutOnlyWhenAdvancedToItsDeadline() throws Exception {
    ManualTime time = new ManualTime();
    Semaphore permits = new Semaphore(0);
    Future<Boolean> took = direct.submit(() -> time.tryAcquire(permits, 1, TimeUnit.SECONDS));
    await().atMost(Duration.ofSeconds(10)).until(() -> time.waiting() == 1);

    time.advance(Duration.ofMillis(999));
    assertThat(time.waiting()).isEqualTo(1);
    assertThat(took).isNotDone();

    time.advance(Duration.ofMillis(1));
    assertThat(took.get(10, TimeUnit.SECONDS)).isFalse();
    assertThat(time.waiting()).isZero();
    assertThat(permits.availablePermits()).isZero();
  }

  @Test
  void aWaitTakesAReleasedPermitWithoutTimeMoving() throws Exception {
    ManualTime time = new ManualTime();
    Semaphore permits = new Semaphore(0);
    Future<Boolean> took = direct.submit(() -> time.tryAcquire(permits, 1, TimeUnit.HOURS));
    await().atMost(Duration.ofSeconds(10)).until(() -> time.waiting() == 1);

    permits.release();
    assertThat(took.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(time.waiting()).isZero();
    assertThat(time.tryAcquire(permits, 0, TimeUnit.SECONDS)).isFalse();
  }
}
