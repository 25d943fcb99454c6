package io.playline.bench.heartbeats.report;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The arithmetic of the report: medians over passes, ratios, per-heartbeat and per-connection figures. Stateless. */
public final class ReportMath {
  private ReportMath() {}

  /** The median of the finite values (mean of the middle two for an even count); NaN when there are none. */
  public static double median(List<Double> values) {
    List<Double> v = new ArrayList<>();
    for (Double d : values) {
      if (d != null && Double.isFinite(d)) {
        v.add(d);
      }
    }
    if (v.isEmpty()) {
      return Double.NaN;
    }
    Collections.sort(v);
    int n = v.size();
    return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
  }

  /** {@code part / whole}, NaN when either is not a positive finite number (a missing baseline). */
  public static double ratio(double part, double whole) {
    return Double.isFinite(part) && Double.isFinite(whole) && whole > 0 && part >= 0 ? part / whole : Double.NaN;
  }

  /** {@code count / heartbeats}, NaN without heartbeats or without the count (-1 / NaN = not measured). */
  public static double perHeartbeat(double count, long heartbeats) {
    return heartbeats > 0 && Double.isFinite(count) && count >= 0 ? count / heartbeats : Double.NaN;
  }

  /** Bytes per connection of a growth from {@code before} to {@code after}; NaN when unmeasured. */
  public static double perConnection(double before, double after, long connections) {
    return connections > 0 && before >= 0 && after >= 0 ? (after - before) / connections : Double.NaN;
  }

  /** {@code events / seconds} from a nanosecond interval. */
  public static double perSecond(long events, long nanos) {
    return nanos > 0 ? events * 1e9 / nanos : Double.NaN;
  }

  /** A number for the report: NaN as "n/a", else {@code format}. */
  public static String fmt(String format, double value) {
    return Double.isNaN(value) ? "n/a" : String.format(java.util.Locale.ROOT, format, value);
  }
}
