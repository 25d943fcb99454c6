package io.playline.bench.heartbeats;

import io.playline.bench.heartbeats.report.RunResult;
import io.playline.bench.probe.ServerProbe;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Server memory per connection, from samples taken after a full GC ({@code jcmd GC.run}) before
 * connecting, with half the connections open (the fleet holds there, and the load has warmed the
 * processes), and after the measured window with all of them open. The headline
 * figures are the <em>marginal</em> cost, the slope from the half-way sample to the last one, so a
 * freshly started process's one-off growth (JIT code, classes, the first touch of its young
 * generation) is not charged to connections; the slope from zero is reported beside it.
 * Connections per process come from each server's own {@code playline_connections_open} gauge
 * (the generator's count, split evenly, for servers without metrics).
 *
 * <p>Not thread-safe: the benchmark's control thread uses it.
 */
final class MemoryProbe {
  private static final double MB = 1024 * 1024;

  private final List<ServerProbe> servers;
  private @Nullable List<ServerProbe.Sample> before;
  private @Nullable List<ServerProbe.Sample> mid;
  private @Nullable List<ServerProbe.Sample> after;
  private long midOpen;
  private long afterOpen;

  MemoryProbe(List<ServerProbe> servers) {
    this.servers = servers;
  }

  void before() {
    before = gcAndSample();
  }

  /** Takes the half-way sample (the fleet holds at half its connections meanwhile). */
  void mid(long open) {
    mid = gcAndSample();
    midOpen = open;
  }

  void after(long open) {
    after = gcAndSample();
    afterOpen = open;
  }

  /** Adds the per-connection figures and prints each process's samples. */
  void report(Map<String, Double> figures, PrintStream out) {
    if (before == null || after == null) {
      return;
    }
    List<ServerProbe.Sample> from = mid != null ? mid : before;
    long fromOpen = mid != null ? midOpen : 0;
    figures.put(RunResult.RSS_PER_CONN, slope(from, after, fromOpen, afterOpen, true));
    figures.put(RunResult.HEAP_PER_CONN, slope(from, after, fromOpen, afterOpen, false));
    figures.put(RunResult.RSS_PER_CONN_FROM_ZERO, slope(before, after, 0, afterOpen, true));
    for (int i = 0; i < servers.size(); i++) {
      out.printf(Locale.ROOT, "  memory %-10s conns %6.0f -> %6.0f -> %6.0f   RSS %7.1f -> %7.1f -> %7.1f MB   "
          + "heap after GC %6.1f -> %6.1f -> %6.1f MB%n", servers.get(i).name(),
          conns(before, i, 0), mid == null ? Double.NaN : conns(mid, i, midOpen), conns(after, i, afterOpen),
          before.get(i).rss() / MB, mid == null ? Double.NaN : mid.get(i).rss() / MB, after.get(i).rss() / MB,
          before.get(i).heapUsed() / MB, mid == null ? Double.NaN : mid.get(i).heapUsed() / MB,
          after.get(i).heapUsed() / MB);
    }
  }

  private double slope(List<ServerProbe.Sample> a, List<ServerProbe.Sample> b, long aOpen, long bOpen, boolean rss) {
    double grown = 0;
    double conns = 0;
    for (int i = 0; i < a.size(); i++) {
      double x = rss ? a.get(i).rss() : a.get(i).heapUsed();
      double y = rss ? b.get(i).rss() : b.get(i).heapUsed();
      if (x < 0 || y < 0 || (!rss && x == 0)) {
        return Double.NaN;
      }
      grown += y - x;
      conns += conns(b, i, bOpen) - conns(a, i, aOpen);
    }
    return conns > 0 ? grown / conns : Double.NaN;
  }

  /** Connections open on server {@code i} at a sample: its own gauge, else an even share of {@code open}. */
  private double conns(List<ServerProbe.Sample> samples, int i, long open) {
    ServerProbe.Sample s = samples.get(i);
    return s.metrics().samples().isEmpty() ? (double) open / servers.size() : s.metrics().sum("playline_connections_open");
  }

  /** Each process sampled right after its own full GC, before garbage piles up again. */
  private List<ServerProbe.Sample> gcAndSample() {
    List<ServerProbe.Sample> samples = new ArrayList<>();
    for (ServerProbe p : servers) {
      p.fullGc();
      samples.add(p.sample());
    }
    return samples;
  }
}
