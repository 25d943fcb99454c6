package io.playline.bench.heartbeats.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReportMathTest {
  @Test
  void medianIgnoresMissingValues() {
    assertThat(ReportMath.median(List.of(3.0, 1.0, 2.0))).isEqualTo(2.0);
    assertThat(ReportMath.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
    assertThat(ReportMath.median(Arrays.asList(5.0, Double.NaN, 1.0))).isEqualTo(3.0);
    assertThat(ReportMath.median(List.of(Double.NaN))).isNaN();
  }

  @Test
  void ratiosAndPerHeartbeatFiguresAreNaNWithoutAValidBase() {
    assertThat(ReportMath.ratio(30_000, 50_000)).isEqualTo(0.6);
    assertThat(ReportMath.ratio(1, 0)).isNaN();
    assertThat(ReportMath.ratio(Double.NaN, 5)).isNaN();
    assertThat(ReportMath.perHeartbeat(5, 100)).isEqualTo(0.05);
    assertThat(ReportMath.perHeartbeat(5, 0)).isNaN();
    assertThat(ReportMath.perHeartbeat(-1, 100)).isNaN();
    assertThat(ReportMath.perConnection(100_000_000, 180_000_000, 10_000)).isEqualTo(8_000);
    assertThat(ReportMath.perConnection(-1, 180_000_000, 10_000)).isNaN();
    assertThat(ReportMath.perSecond(50, 500_000_000)).isEqualTo(100);
  }

  @Test
  void targetsCompareMediansOfPlaylineWithMediansOfEachBaseline() {
    List<RunResult> runs = List.of(
        run("playline", 1, 30_000, 4.0), run("playline", 2, 36_000, 6.0), run("playline", 3, 33_000, 5.0),
        run("redis", 1, 50_000, Double.NaN), run("redis", 2, 60_000, Double.NaN),
        run("echo", 1, 70_000, 2.0), run("echo", 2, 60_000, 3.0));
    List<BenchReport.Target> targets = BenchReport.targets(BenchReport.byKind(runs));
    assertThat(targets).filteredOn(t -> t.name().startsWith("Playline / Redis"))
        .singleElement().satisfies(t -> {
          assertThat(t.value()).isEqualTo(33_000 / 55_000.0);
          assertThat(t.met()).isTrue();
        });
    assertThat(targets).filteredOn(t -> t.name().startsWith("Playline / echo"))
        .singleElement().satisfies(t -> assertThat(t.value()).isEqualTo(33_000 / 65_000.0));
    assertThat(targets).noneMatch(t -> t.name().startsWith("Kafka"));
  }

  @Test
  void belowSaturationTheCpuIsComparedWithTheEchosAndTheAckTailWithTheNodesBudget() {
    List<RunResult> runs = List.of(
        run("playline", 1, 5_000, 22.0, 40, 20, 25), run("playline", 2, 5_000, 24.0, 44, 22, 25),
        run("playline", 3, 5_000, 26.0, 42, 18, 25),
        run("echo", 1, 5_000, 3.0, 29, Double.NaN, Double.NaN), run("echo", 2, 5_000, 5.0, 31, Double.NaN, Double.NaN));
    List<BenchReport.Target> targets = BenchReport.targets(BenchReport.byKind(runs));
    assertThat(targets).filteredOn(t -> t.name().contains("CPU per heartbeat / echo"))
        .singleElement().satisfies(t -> {
          assertThat(t.value()).isEqualTo((42 + 20) / 30.0);
          assertThat(t.met()).isFalse();
        });
    assertThat(targets).filteredOn(t -> t.name().contains("heartbeat.ack.budget"))
        .singleElement().satisfies(t -> {
          assertThat(t.value()).isEqualTo(24.0);
          assertThat(t.goal()).isEqualTo("<= 25");
          assertThat(t.met()).isTrue();
        });
  }

  private static RunResult run(String kind, int pass, double acked, double p99) {
    return new RunResult(kind, pass, Map.of(RunResult.ACKED, acked, RunResult.P99, p99), Map.of(), Map.of());
  }

  private static RunResult run(String kind, int pass, double acked, double p99, double cpu, double redisCpu,
      double budgetMs) {
    return new RunResult(kind, pass, Map.of(RunResult.ACKED, acked, RunResult.OFFERED, 5_000.0, RunResult.P99, p99,
        RunResult.CPU_SERVER, cpu, RunResult.CPU_REDIS, redisCpu, RunResult.ACK_BUDGET, budgetMs), Map.of(), Map.of());
  }
}
