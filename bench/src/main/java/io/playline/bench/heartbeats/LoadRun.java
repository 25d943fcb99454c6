package io.playline.bench.heartbeats;

import io.playline.bench.heartbeats.report.ReportMath;
import io.playline.bench.heartbeats.report.RunResult;
import io.playline.bench.load.Fleet;
import io.playline.bench.load.LoadSnapshot;
import io.playline.bench.probe.ProcStats;
import io.playline.bench.probe.PrometheusText;
import io.playline.bench.probe.ServerProbe;
import io.playline.time.Time;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * Runs one measured load run against one set of servers: connect (bounded), optionally sample
 * memory before and after, ramp the offered rate during warm-up, measure a window (or a
 * flush-aligned window), print a progress line every second, and turn counters, histograms,
 * {@code /proc} and {@code /metrics} deltas into a {@link RunResult}.
 *
 * <p>Runs on the calling thread; one run at a time.
 *
 * @param plan what to run
 * @param servers the measured server processes (gateways or the echo server)
 * @param redis the redis-server process, for its CPU, or null
 * @param out where progress goes
 */
record LoadRun(Plan plan, List<ServerProbe> servers, @Nullable ServerProbe redis, PrintStream out) {
  private static final long SECOND = 1_000_000_000L;
  /** The JIT compilers' time (every role binds it): its share of the server CPU in the window. */
  private static final String JIT_MS = "jvm_compilation_time_ms_total";

  /**
   * @param kind {@code playline} or {@code echo}
   * @param pass 1-based
   * @param connections connections the fleet opens
   * @param rate offered heartbeats per second (rate pacing), 0 under interval pacing
   * @param ramp how long the rate takes to reach {@code rate}
   * @param warmup time between reaching full connection count and the window (includes the ramp)
   * @param measure the window; with flushCycles, the longest the window may take
   * @param memory sample RSS and heap per connection (full GCs before each sample)
   * @param flushCycles > 0: Kafka and HBase figures over this many flush cycles (one server only)
   */
  record Plan(String kind, int pass, int connections, double rate, Duration ramp, Duration warmup, Duration measure,
      boolean memory, int flushCycles) {}

  RunResult execute(Supplier<Fleet> fleetFactory) {
    List<ServerProbe.Sample> start = sampleAll();
    MemoryProbe memory = plan.memory() ? new MemoryProbe(servers) : null;
    if (memory != null) {
      memory.before();
    }
    try (Fleet fleet = fleetFactory.get()) {
      if (memory != null) {
        // Warm the servers with the first half, hold there while sampling, then open the rest.
        fleet.limitConnections(fleet.connections() / 2);
        awaitConnected(fleet, fleet.connections() / 2);
        fleet.setRate(plan.rate(), plan.ramp());
        tick(fleet, "settle", Duration.ofSeconds(5), null);
        memory.mid(fleet.snapshot().open());
        fleet.limitConnections(fleet.connections());
      }
      LoadSnapshot connected = awaitConnected(fleet, fleet.connections());
      fleet.setRate(plan.rate(), plan.ramp());
      tick(fleet, "warm-up", plan.warmup(), null);
      LoadSnapshot w0 = fleet.snapshot();
      List<ServerProbe.Sample> s0 = sampleAll();
      List<Long> gen = fleet.pids();
      long g0 = cpu(gen);
      long r0 = redis == null ? -1 : ProcStats.cpuNanos(redis.pid());
      FlushCycles cycles = plan.flushCycles() > 0 && servers.size() == 1 ? new FlushCycles(plan.flushCycles()) : null;
      Histogram window = tick(fleet, "measure", plan.measure(), cycles);
      LoadSnapshot w1 = fleet.snapshot();
      window.add(w1.interval());
      List<ServerProbe.Sample> s1 = sampleAll();
      long g1 = cpu(gen);
      long r1 = redis == null ? -1 : ProcStats.cpuNanos(redis.pid());
      if (memory != null) {
        memory.after(w1.open());
      }
      fleet.setRate(0, Duration.ZERO);
      Map<String, Double> f = new LinkedHashMap<>();
      long acked = w1.acked() - w0.acked();
      long nanos = w1.nanos() - w0.nanos();
      f.put(RunResult.CONNECTIONS, (double) connected.open());
      f.put(RunResult.OFFERED, plan.rate() > 0 ? plan.rate() : Double.NaN);
      f.put(RunResult.ACKED, ReportMath.perSecond(acked, nanos));
      f.put(RunResult.P50, millis(window, 50));
      f.put(RunResult.P99, millis(window, 99));
      f.put(RunResult.P999, millis(window, 99.9));
      f.put(RunResult.MAX, window.getTotalCount() == 0 ? Double.NaN : window.getMaxValue() / 1000.0);
      f.put(RunResult.SKIPPED, ReportMath.perSecond(w1.skipped() - w0.skipped(), nanos));
      if (memory != null) {
        memory.report(f, out);
      }
      long serverCpu = cpuDelta(s0, s1);
      f.put(RunResult.CPU_SERVER, micros(serverCpu, acked));
      f.put(RunResult.CPU_REDIS, micros(r0 < 0 || r1 < 0 ? -1 : r1 - r0, acked));
      f.put(RunResult.CPU_GENERATOR, micros(g0 < 0 || g1 < 0 ? -1 : g1 - g0, acked));
      PrometheusText m0 = metrics(s0);
      PrometheusText m1 = metrics(s1);
      Amplification.add(f, m0, m1, metrics(start), acked, connected.open());
      if (serverCpu > 0 && m1.has(JIT_MS)) {
        f.put(RunResult.JIT_SHARE, 100 * m1.delta(m0, JIT_MS) * 1e6 / serverCpu);
      }
      FlushCycles.Window fw = cycles == null ? null : cycles.window();
      if (fw != null) {
        f.put(RunResult.KAFKA, ReportMath.perHeartbeat(fw.kafkaRecords(), (long) fw.heartbeats()));
        f.put(RunResult.HBASE, ReportMath.perHeartbeat(fw.hbaseMutations(), (long) fw.heartbeats()));
        f.put(RunResult.FLUSH_WINDOW, fw.seconds());
      } else if (cycles != null) {
        out.printf("  (no complete flush cycle within %ss: %d flushes seen; Kafka/HBase figures are window ratios)%n",
            plan.measure().toSeconds(), cycles.flushesSeen());
      }
      LoadSnapshot last = fleet.snapshot();
      List<ServerProbe.Sample> end = sampleAll();
      if (!metrics(end).samples().isEmpty()) {
        f.put(RunResult.FIRST_TODAY_CMDS, delta(end, start, "playline_first_today_redis_commands_total"));
      }
      return new RunResult(plan.kind(), plan.pass(), f, last.errorsByName(), last.closes());
    }
  }

  private LoadSnapshot awaitConnected(Fleet fleet, int wanted) {
    long begin = Time.SYSTEM.nanoTime();
    long limit = SECOND * (60 + 2L * wanted / 500);
    LoadSnapshot s = fleet.snapshot();
    long settled = -1;
    int still = 0;
    // Done when every connection opened or failed; also when the count stopped moving for 15 s
    // (connections the server closed after opening count neither as open nor as failed).
    while (s.open() + s.connectFailures() < wanted && Time.SYSTEM.nanoTime() - begin < limit && still < 15) {
      sleep(SECOND);
      s = fleet.snapshot();
      long now = s.open() + s.connectFailures();
      still = now == settled ? still + 1 : 0;
      settled = now;
      progress("connect", (Time.SYSTEM.nanoTime() - begin) / SECOND, s, Double.NaN, s.interval());
    }
    if (s.open() < wanted) {
      out.printf("  %d of %d connections open (%d failed; closes %s)%n", s.open(), wanted,
          s.connectFailures(), s.closes());
    }
    return s;
  }

  /** Runs {@code phase} for {@code length}, printing progress; returns the latencies recorded meanwhile. */
  private Histogram tick(Fleet fleet, String phase, Duration length, @Nullable FlushCycles cycles) {
    Histogram all = LoadSnapshot.newHistogram();
    LoadSnapshot prev = fleet.snapshot();
    long begin = Time.SYSTEM.nanoTime();
    long end = begin + length.toNanos();
    while (Time.SYSTEM.nanoTime() < end && (cycles == null || !cycles.done())) {
      sleep(SECOND);
      LoadSnapshot s = fleet.snapshot();
      all.add(s.interval());
      double rate = ReportMath.perSecond(s.acked() - prev.acked(), s.nanos() - prev.nanos());
      progress(phase, (Time.SYSTEM.nanoTime() - begin) / SECOND, s, rate, s.interval());
      if (cycles != null) {
        cycles.feed(Time.SYSTEM.nanoTime(), servers.get(0).sample().metrics());
      }
      prev = s;
    }
    return all;
  }

  private void progress(String phase, long t, LoadSnapshot s, double ackedPerSecond, Histogram interval) {
    out.printf(Locale.ROOT, "  %-8s p%d %-7s %4ds  conns %6d  acked/s %8s  errors %d  p99 %s ms%n", plan.kind(),
        plan.pass(), phase, t, s.open(), ReportMath.fmt("%.0f", ackedPerSecond), s.errorTotal(),
        interval.getTotalCount() == 0 ? "-" : ReportMath.fmt("%.2f", interval.getValueAtPercentile(99) / 1000.0));
  }

  private List<ServerProbe.Sample> sampleAll() {
    List<ServerProbe.Sample> samples = new ArrayList<>();
    for (ServerProbe p : servers) {
      samples.add(p.sample());
    }
    return samples;
  }

  private static long cpu(List<Long> pids) {
    long total = 0;
    for (long pid : pids) {
      long c = ProcStats.cpuNanos(pid);
      if (c < 0) {
        return -1;
      }
      total += c;
    }
    return total;
  }

  private static long cpuDelta(List<ServerProbe.Sample> a, List<ServerProbe.Sample> b) {
    long total = 0;
    for (int i = 0; i < a.size(); i++) {
      if (a.get(i).cpuNanos() < 0 || b.get(i).cpuNanos() < 0) {
        return -1;
      }
      total += b.get(i).cpuNanos() - a.get(i).cpuNanos();
    }
    return total;
  }

  private static double delta(List<ServerProbe.Sample> later, List<ServerProbe.Sample> earlier, String metric) {
    return metrics(later).delta(metrics(earlier), metric);
  }

  /**
   * The servers' metrics summed into one view (each series summed across servers; the ack budget,
   * a setting, as the largest of the servers').
   */
  static PrometheusText metrics(List<ServerProbe.Sample> samples) {
    if (samples.size() == 1) {
      return samples.get(0).metrics();
    }
    StringBuilder text = new StringBuilder();
    Map<String, Double> sum = new LinkedHashMap<>();
    for (ServerProbe.Sample s : samples) {
      s.metrics().samples().forEach((k, v) -> sum.merge(k, v,
          k.startsWith("playline_heartbeat_ack_budget_seconds") ? Math::max : Double::sum));
    }
    sum.forEach((k, v) -> text.append(k).append(' ').append(v).append('\n'));
    return PrometheusText.parse(text.toString());
  }

  private static double micros(long cpuNanos, long heartbeats) {
    return cpuNanos < 0 ? Double.NaN : ReportMath.perHeartbeat(cpuNanos / 1000.0, heartbeats);
  }

  private static double millis(Histogram h, double percentile) {
    return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1000.0;
  }

  private static void sleep(long nanos) {
    try {
      Thread.sleep(nanos / 1_000_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
