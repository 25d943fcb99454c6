package io.playline.node.loops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class LoopCountersTest {

  @Test
  void threadsAddingAtOnceLoseNothingWhetherEachOwnsAStripeOrSomeShareOne() throws InterruptedException {
    addAtOnce(new LoopCounters(3), 6, 200_000); // each thread its own stripe
    // More threads than own a stripe: the last six add atomically into the shared one.
    addAtOnce(new LoopCounters(3), LoopCounters.OWNED + 6, 20_000);
  }

  @Test
  void eachCounterIsItsOwnAndTheTwoCounterAddIsTwoAdds() {
    LoopCounters c = new LoopCounters(4);
    c.add(0, 5);
    c.add(3, 7);
    c.add(1, 2, 3, 100);
    assertThat(c.sums()).containsExactly(5, 2, 0, 107);
    assertThat(c.sum(3)).isEqualTo(107);
    assertThat(c.size()).isEqualTo(4);
  }

  @Test
  void noCounterIsRefused() {
    assertThatThrownBy(() -> new LoopCounters(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("size must be at least 1: 0");
  }

  private static void addAtOnce(LoopCounters c, int threads, int each) throws InterruptedException {
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      long weight = t + 1;
      Thread thread = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          return;
        }
        for (int i = 0; i < each; i++) {
          c.add(0, 1, 2, weight);
        }
      });
      thread.start();
      running.add(thread);
    }
    start.countDown();
    long seen = 0;
    while (running.stream().anyMatch(Thread::isAlive)) {
      long now = c.sum(0); // a scrape while they add: never goes back
      assertThat(now).isGreaterThanOrEqualTo(seen);
      seen = now;
    }
    for (Thread thread : running) {
      thread.join();
    }
    assertThat(c.sum(0)).isEqualTo((long) threads * each);
    assertThat(c.sum(1)).isZero();
    assertThat(c.sum(2)).isEqualTo((long) each * (threads * (threads + 1) / 2));
  }
}
