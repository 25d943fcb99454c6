package io.playline.bench.heartbeats.report;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Prints the final report: every figure per run kind (median over passes, then each pass), the
 * errors and close codes clients saw, and the targets with Playline's value, the
 * baseline it is compared with, and whether it was met. Stateless.
 */
public final class BenchReport {
  /** A JIT share of the server's CPU in the window above which the report says the warm-up was short. */
  static final double JIT_WARNING_PERCENT = 5;

  private BenchReport() {}

  /** One target line: the figure, how it is judged and the measured value. */
  public record Target(String name, String goal, double value, boolean met) {}

  public static void print(PrintStream out, String description, List<RunResult> results) {
    out.println();
    out.println("== Playline bench report: " + description + " ==");
    Map<String, List<RunResult>> byKind = byKind(results);
    Set<String> figures = new LinkedHashSet<>();
    results.forEach(r -> figures.addAll(r.figures().keySet()));
    StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "%-42s", "figure (median of passes)"));
    byKind.keySet().forEach(k -> head.append(String.format(Locale.ROOT, " %18s", k)));
    out.println(head);
    for (String figure : figures) {
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-42s", figure));
      boolean any = false;
      for (List<RunResult> runs : byKind.values()) {
        double m = median(runs, figure);
        any |= !Double.isNaN(m);
        line.append(String.format(Locale.ROOT, " %18s", number(m)));
      }
      if (any) {
        out.println(line);
      }
    }
    out.println();
    for (Map.Entry<String, List<RunResult>> e : byKind.entrySet()) {
      List<String> passes = new ArrayList<>();
      for (RunResult r : e.getValue()) {
        passes.add(number(r.get(RunResult.ACKED)) + "/s p99 " + number(r.get(RunResult.P99)) + " ms");
      }
      out.printf("%-18s per pass: %s%n", e.getKey(), String.join(" | ", passes));
      RunResult last = e.getValue().get(e.getValue().size() - 1);
      if (!last.errors().isEmpty() || !last.closes().isEmpty()) {
        out.printf("%-18s errors %s, closes by code %s (last pass)%n", "", last.errors(), last.closes());
      }
    }
    out.println();
    double jit = median(playline(byKind), RunResult.JIT_SHARE);
    if (jit > JIT_WARNING_PERCENT) {
      out.printf(Locale.ROOT, "Note: the server's JIT compiler ran for %s %% of its CPU in the measured window: its CPU "
          + "per heartbeat counts code still being compiled; a longer --warmup measures the steady state.%n%n",
          number(jit));
    }
    out.println("Targets (issue 5; Kafka/HBase per heartbeat are judged only over whole flush cycles, --flush-cycles):");
    for (Target t : targets(byKind)) {
      out.printf(Locale.ROOT, "  %-58s %-12s %-10s %s%n", t.name(), t.goal(), number(t.value()),
          Double.isNaN(t.value()) ? "n/a" : t.met() ? "MET" : "MISSED");
    }
  }

  /** The targets that this run's results can judge. */
  public static List<Target> targets(Map<String, List<RunResult>> byKind) {
    List<Target> t = new ArrayList<>();
    List<RunResult> playline = playline(byKind);
    if (playline.isEmpty()) {
      return t;
    }
    double acked = median(playline, RunResult.ACKED);
    List<RunResult> redis = byKind.getOrDefault("redis", List.of());
    List<RunResult> echo = byKind.getOrDefault("echo", List.of());
    if (!redis.isEmpty()) {
      double r = ReportMath.ratio(acked, median(redis, RunResult.ACKED));
      t.add(new Target("Playline / Redis-alone acked heartbeats/s", ">= 0.60", r, r >= 0.60));
    }
    if (!echo.isEmpty()) {
      double r = ReportMath.ratio(acked, median(echo, RunResult.ACKED));
      t.add(new Target("Playline / echo acked heartbeats/s", ">= 0.50", r, r >= 0.50));
      // Latency compares like with like only below saturation: a saturated run's p99 is its queue.
      double offered = median(playline, RunResult.OFFERED);
      if (!(acked < 0.95 * offered) && !(median(echo, RunResult.ACKED) < 0.95 * offered)) {
        double cpu = ReportMath.ratio(median(playline, RunResult.CPU_SERVER) + median(playline, RunResult.CPU_REDIS),
            median(echo, RunResult.CPU_SERVER));
        t.add(new Target("Playline gateway + redis-server CPU per heartbeat / echo's, below saturation", "<= 2.0", cpu,
            cpu <= 2.0));
      }
    }
    // Below saturation the ack tail is the batching the node chose: it must stay within its budget.
    double budget = median(playline, RunResult.ACK_BUDGET);
    double offered = median(playline, RunResult.OFFERED);
    if (budget > 0 && !(acked < 0.95 * offered)) {
      double p99 = median(playline, RunResult.P99);
      t.add(new Target("Playline ack p99 (ms) within the node's heartbeat.ack.budget", "<= " + number(budget), p99,
          p99 <= budget));
    }
    double rss = median(playline, RunResult.RSS_PER_CONN);
    if (!Double.isNaN(rss)) {
      t.add(new Target("server RSS per idle authenticated connection (bytes)", "<= 8192", rss, rss <= 8192));
    }
    double identity = median(playline, RunResult.IDENTITY);
    t.add(new Target("identity checks per heartbeat", "0", identity, identity == 0));
    double rt = median(playline, RunResult.REDIS_RT);
    t.add(new Target("Redis round trips per heartbeat at " + number(acked) + " acked/s", "<= 0.05", rt, rt <= 0.05));
    double ft = median(playline, RunResult.FIRST_TODAY_CMDS);
    t.add(new Target("first-today Redis commands, echoing clients (whole run)", "0", ft, ft == 0));
    // A window shorter than the 60 s write-back cycle says nothing about Kafka and HBase per heartbeat.
    if (!Double.isNaN(median(playline, RunResult.FLUSH_WINDOW))) {
      double kafka = median(playline, RunResult.KAFKA);
      t.add(new Target("Kafka records per heartbeat (flush-aligned)", "<= 0.02", kafka, kafka <= 0.02));
      double hbase = median(playline, RunResult.HBASE);
      t.add(new Target("HBase mutations per heartbeat (flush-aligned)", "<= 0.25", hbase, hbase <= 0.25));
    }
    return t;
  }

  /** Playline's runs: {@code playline}, or {@code playline-today} in the first-today scenario. */
  private static List<RunResult> playline(Map<String, List<RunResult>> byKind) {
    return byKind.getOrDefault("playline", byKind.getOrDefault("playline-today", List.of()));
  }

  public static Map<String, List<RunResult>> byKind(List<RunResult> results) {
    Map<String, List<RunResult>> byKind = new LinkedHashMap<>();
    for (RunResult r : results) {
      byKind.computeIfAbsent(r.kind(), k -> new ArrayList<>()).add(r);
    }
    return byKind;
  }

  static double median(List<RunResult> runs, String figure) {
    List<Double> values = new ArrayList<>();
    for (RunResult r : runs) {
      values.add(r.get(figure));
    }
    return ReportMath.median(values);
  }

  /** Integers without decimals, small numbers with four significant digits, NaN as n/a. */
  static String number(double v) {
    if (Double.isNaN(v)) {
      return "n/a";
    }
    if (Math.abs(v) >= 1000 || v == Math.rint(v)) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    return String.format(Locale.ROOT, "%.4g", v);
  }
}
