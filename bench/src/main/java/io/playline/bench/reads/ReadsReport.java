package io.playline.bench.reads;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The table {@code bench reads} ends with. Stateless; prints to standard output. */
final class ReadsReport {
  private ReadsReport() {
  }

  /** Medians over passes per run kind, and each Playline read's ratio to its store-alone baseline. */
  static void print(List<ReadLoops.Result> results, List<String> kinds, String title) {
    Map<String, List<ReadLoops.Result>> byKind = new LinkedHashMap<>();
    for (ReadLoops.Result r : results) {
      byKind.computeIfAbsent(r.kind(), k -> new ArrayList<>()).add(r);
    }
    System.out.printf("%n== %s ==%n", title);
    System.out.printf("%-22s %10s %9s %9s %9s %14s %14s %14s %14s %7s %8s %9s%n", "run (median)", "req/s", "p50 ms",
        "p99 ms", "p99.9 ms", "server us/req", "loops us/req", "redis us/req", "bench us/req", "errors", "hb/s",
        "hb p99 ms");
    Map<String, Double> rates = new LinkedHashMap<>();
    Map<String, Double> serverCpu = new LinkedHashMap<>();
    Map<String, Double> redisCpu = new LinkedHashMap<>();
    for (var e : byKind.entrySet()) {
      List<ReadLoops.Result> rs = e.getValue();
      double rate = median(rs, ReadLoops.Result::perSecond);
      rates.put(e.getKey(), rate);
      serverCpu.put(e.getKey(), median(rs, ReadLoops.Result::serverCpu));
      redisCpu.put(e.getKey(), median(rs, ReadLoops.Result::redisCpu));
      System.out.printf(Locale.ROOT, "%-22s %10.0f %9.2f %9.2f %9.2f %14.1f %14.1f %14.1f %14.1f %7d %8.0f %9.2f%n",
          e.getKey(), rate, median(rs, ReadLoops.Result::p50), median(rs, ReadLoops.Result::p99),
          median(rs, ReadLoops.Result::p999), median(rs, ReadLoops.Result::serverCpu),
          median(rs, ReadLoops.Result::playerLoopsCpu), median(rs, ReadLoops.Result::redisCpu), median(rs, ReadLoops.Result::ownCpu),
          rs.stream().mapToLong(ReadLoops.Result::errors).sum(), median(rs, ReadLoops.Result::heartbeatsPerSecond),
          median(rs, ReadLoops.Result::heartbeatP99));
    }
    for (String kind : kinds) {
      Double playline = rates.get("playline-" + kind);
      Double redis = rates.get("redis-" + kind);
      Double hbase = rates.get("hbase-" + kind);
      if (playline != null && redis != null) {
        System.out.printf(Locale.ROOT, "%s: Playline serves %.2fx of Redis alone's requests/s; Redis CPU per request "
            + "%.1fx of Redis alone's%n", kind, playline / redis, redisCpu.get("playline-" + kind)
            / redisCpu.get("redis-" + kind));
      }
      if (playline != null && hbase != null) {
        System.out.printf(Locale.ROOT, "%s: Playline serves %.2fx of HBase alone's requests/s; server CPU per request "
            + "%.1fx of HBase alone's (the standalone JVM: API and HBase vs HBase)%n", kind, playline / hbase,
            serverCpu.get("playline-" + kind) / serverCpu.get("hbase-" + kind));
      }
    }
  }

  private static double median(List<ReadLoops.Result> rs, java.util.function.ToDoubleFunction<ReadLoops.Result> f) {
    double[] v = rs.stream().mapToDouble(f).sorted().toArray();
    return v.length == 0 ? Double.NaN : v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
