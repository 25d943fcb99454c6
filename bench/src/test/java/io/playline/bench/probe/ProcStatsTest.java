package io.playline.bench.probe;

import static org.assertj.core.api.Assertions.assertThat;

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
  void readsThisProcess() {
    long pid = ProcessHandle.current().pid();
    assertThat(ProcStats.rssBytes(pid)).isPositive();
    assertThat(ProcStats.cpuNanos(pid)).isPositive();
    assertThat(ProcStats.rssBytes(Long.MAX_VALUE)).isEqualTo(-1);
  }
}
