package io.playline.bench.heartbeats.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The report says when the server was still compiling in the measured window, and only then. */
class BenchReportJitTest {
  @Test
  void aJitShareOverFivePercentIsCalledOutWithTheFigure() {
    String report = report(12.5);
    assertThat(report).contains("JIT compiler ran for 12.5").contains("--warmup");
  }

  @Test
  void aWarmServerGetsNoNote() {
    String report = report(0.4);
    assertThat(report).doesNotContain("JIT compiler ran").doesNotContain("--warmup");
  }

  private static String report(double jitShare) {
    RunResult run = new RunResult("playline", 1, Map.of(RunResult.ACKED, 5000.0, RunResult.OFFERED, 5000.0,
        RunResult.CPU_SERVER, 40.0, RunResult.JIT_SHARE, jitShare), Map.of(), Map.of());
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BenchReport.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), "test", List.of(run));
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
