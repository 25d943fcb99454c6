package io.playline.bench.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AttackerThreadsTest {
  /** SCHED_IDLE in the policy field (41) of /proc/<pid>/task/<tid>/stat. */
  private static final int SCHED_IDLE = 5;

  @Test
  void anIdleAttackerThreadRunsInTheIdleClassAndItsCpuIsCounted() throws Exception {
    AttackerThreads threads = new AttackerThreads(AttackerThreads.Cpu.IDLE);
    CompletableFuture<Integer> policy = new CompletableFuture<>();
    CountDownLatch spun = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread t = threads.newThread(() -> {
      try {
        policy.complete(ownPolicy());
      } catch (Exception e) {
        policy.completeExceptionally(e);
      }
      // CPU, not wall time: an idle-class thread on a busy machine waits for its turn.
      while (ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() < TimeUnit.MILLISECONDS.toNanos(100)) {
        Thread.onSpinWait();
      }
      spun.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    t.start();
    int p = policy.get(30, TimeUnit.SECONDS);
    assertThat(spun.await(120, TimeUnit.SECONDS)).isTrue();
    long cpu = threads.cpuNanos();
    release.countDown();
    t.join(30_000);
    if (threads.describe().equals("idle")) {
      assertThat(p).as("scheduling policy of the attacker thread").isEqualTo(SCHED_IDLE);
    } else {
      // A machine that refuses SCHED_IDLE says so in the report's header instead.
      assertThat(threads.describe()).startsWith("shared (SCHED_IDLE refused");
      assertThat(p).isZero();
    }
    assertThat(cpu).as("CPU of the attacker thread, ns").isGreaterThan(TimeUnit.MILLISECONDS.toNanos(50));
  }

  @Test
  void aSharedAttackerThreadKeepsTheNormalClass() throws Exception {
    AttackerThreads threads = new AttackerThreads(AttackerThreads.Cpu.parse("shared"));
    CompletableFuture<Integer> policy = new CompletableFuture<>();
    Thread t = threads.newThread(() -> {
      try {
        policy.complete(ownPolicy());
      } catch (Exception e) {
        policy.completeExceptionally(e);
      }
    });
    t.start();
    assertThat(policy.get(30, TimeUnit.SECONDS)).isZero();
    assertThat(threads.describe()).isEqualTo("shared");
  }

  @Test
  void anUnknownCpuModeIsRefused() {
    assertThatThrownBy(() -> AttackerThreads.Cpu.parse("fast")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--attacker-cpu");
  }

  private static int ownPolicy() throws Exception {
    String stat = Files.readString(Path.of("/proc/thread-self/stat"), StandardCharsets.US_ASCII);
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Integer.parseInt(f[41 - 3]);
  }
}
