package io.playline.bench.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ProcStatsTest {
  @Test
  void readsUtimePlusStimeEvenWhenTheCommandHasSpacesAndParens() {
    String stat = "4242 (java (bench) x) S 1 4242 4242 0 -1 4194560 12345 0 0 0 700 55 0 0 20 0 40 0 123 "
        + "9000000000 60000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";
    assertThat(ProcStats.parseCpuTicks(stat)).isEqualTo(755);
  }

  @Test
  void readsVmRssInKilobytes() {
    String status = "Name:\tjava\nVmPeak:\t 9000000 kB\nVmRSS:\t  812344 kB\nThreads:\t40\n";
    assertThat(ProcStats.parseRssKb(status)).isEqualTo(812_344);
  }

  @Test
  void readsAThreadsNameEvenWithSpacesAndParens() {
    assertThat(ProcStats.threadName("4243 (playline-io-5-1) R 1 4242")).isEqualTo("playline-io-5-1");
    assertThat(ProcStats.threadName("4244 (a (b) c) S 1 4242")).isEqualTo("a (b) c");
  }

  @Test
  void countsTheCpuOfThisProcesssThreadsByName() throws Exception {
    long pid = ProcessHandle.current().pid();
    long deadline = System.nanoTime() + 30_000_000_000L;
    AtomicBoolean seen = new AtomicBoolean();
    Thread spinner = new Thread(() -> {
      // Busy until its own CPU shows in /proc (clock ticks of 10 ms), bounded by the deadline.
      while (System.nanoTime() < deadline) {
        if (ProcStats.threadsCpuNanos(pid, "procstats-spin") >= 50_000_000L) {
          seen.set(true);
          return;
        }
      }
    }, "procstats-spin"); // within the 15 characters Linux keeps of a thread's name
    spinner.start();
    spinner.join();
    assertThat(seen).as("the spinning thread's CPU time, found by its name").isTrue();
    assertThat(ProcStats.threadsCpuNanos(pid, "procstats-none")).as("no such thread: unknown, not idle")
        .isEqualTo(-1);
    assertThat(ProcStats.threadsCpuNanos(Long.MAX_VALUE, "procstats-spin")).isEqualTo(-1);
  }

  @Test
  void readsThisProcess() {
    long pid = ProcessHandle.current().pid();
    assertThat(ProcStats.rssBytes(pid)).isPositive();
    assertThat(ProcStats.cpuNanos(pid)).isPositive();
    assertThat(ProcStats.rssBytes(Long.MAX_VALUE)).isEqualTo(-1);
  }
}
