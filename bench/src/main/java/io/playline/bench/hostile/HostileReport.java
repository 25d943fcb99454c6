package io.playline.bench.hostile;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Prints the hostile bench's results as Markdown tables (pasted as is into docs/benchmarks/hostile.md):
 * one row per phase with the honest players' figures and the targets, then one row per
 * attacker. Stateless.
 */
public final class HostileReport {
  /** Honest ack p99 may grow to this multiple of the baseline's. */
  public static final double MAX_P99_RATIO = 2.0;
  public static final long MAX_RSS_GROWTH = 64L << 20;
  public static final long MAX_LOG_PER_MINUTE = 1L << 20;
  public static final long MAX_CUTOFF_NANOS = 1_000_000_000L;
  /** Honest connects behind an attacker's address ({@link AttackKind#NEIGHBOURS}) admitted at least this share. */
  public static final double MIN_NEIGHBOURS_ADMITTED = 0.99;

  private HostileReport() {}

  public static void print(List<PhaseResult> phases, PrintStream out) {
    if (phases.isEmpty()) {
      return;
    }
    PhaseResult base = phases.get(0);
    out.println();
    out.println("| phase | honest acked/s | ack p50 ms | ack p99 ms | p99 / baseline | honest errors | node RSS growth MiB "
        + "| node log KiB/min | node CPU cores | attacker CPU cores | recovery s | targets |");
    out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    for (PhaseResult p : phases) {
      double ratio = p.p99Millis() / base.p99Millis();
      out.printf(Locale.ROOT, "| %s | %.0f | %.2f | %.2f | %.2f | %d | %.1f | %.1f | %.2f | %.2f | %s | %s |%n",
          p.name(), p.acked() / p.seconds(), p.p50Millis(), p.p99Millis(), ratio, p.honestErrors(),
          p.rssGrowthBytes() / (double) (1 << 20), p.logBytesPerMinute() / 1024, p.nodeCores(), p.attackerCores(),
          Double.isNaN(p.recoverySeconds()) ? "-" : String.format(Locale.ROOT, "%.0f", p.recoverySeconds()),
          verdict(p, ratio, p.acked() / p.seconds() / (base.acked() / base.seconds())));
    }
    for (PhaseResult p : phases) {
      if (p.honestErrors() > 0) {
        out.printf("%nhonest errors in %s: %s", p.name(), p.honestErrorKinds());
      }
    }
    out.println();
    out.println();
    out.println("| phase | attacker | conns opened | sent | sent/s | accepted | first refusal after its first request "
        + "| refusals | open at end | longest open s | cut off ≤ 1 s |");
    out.println("|---|---|---:|---:|---:|---:|---:|---|---:|---:|---|");
    for (PhaseResult p : phases) {
      for (AttackStats.Snapshot a : p.attackers()) {
        out.printf(Locale.ROOT, "| %s | %s | %d | %d | %.0f | %d | %s | %s | %d | %.1f | %s |%n", p.name(),
            a.kind().cliName(), a.connects(), a.sent(), a.sent() * 1e9 / a.elapsedNanos(), a.accepted(),
            a.firstRefusalNanos() < 0 ? "never" : String.format(Locale.ROOT, "%.0f ms", a.firstRefusalNanos() / 1e6),
            refusals(a.refusals()), a.open(), a.longestOpenNanos() / 1e9,
            a.kind().honest() ? String.format(Locale.ROOT, "honest: %.1f %% admitted", 100 * admitted(a))
                : cutOff(a) ? "met" : "missed");
      }
    }
  }

  /**
   * Met when the node refused the attacker (close, GOAWAY, RATE_LIMITED, ...) within 1 s of its first
   * request.
   */
  static boolean cutOff(AttackStats.Snapshot a) {
    return a.firstRefusalNanos() >= 0 && a.firstRefusalNanos() <= MAX_CUTOFF_NANOS;
  }

  /**
   * The targets for one phase; {@code ackedRatio} (honest acks per second over the
   * baseline's) guards the p99, which only sees heartbeats that were acked: a stall shows as fewer
   * acks, so under 90 % of the baseline's counts as a missed p99.
   */
  static String verdict(PhaseResult p, double ratio, double ackedRatio) {
    StringBuilder missed = new StringBuilder();
    if (!(ratio <= MAX_P99_RATIO)) {
      missed.append(" p99");
    } else if (!(ackedRatio >= 0.9)) {
      missed.append(" p99 (acks stalled)");
    }
    if (p.honestErrors() > 0) {
      missed.append(" errors");
    }
    for (AttackStats.Snapshot a : p.attackers()) {
      if (a.kind().honest() && !(admitted(a) >= MIN_NEIGHBOURS_ADMITTED)) {
        missed.append(" connects");
      }
    }
    if (p.rssGrowthBytes() > MAX_RSS_GROWTH) {
      missed.append(" RSS");
    }
    if (p.logBytesPerMinute() > MAX_LOG_PER_MINUTE) {
      missed.append(" log");
    }
    return missed.isEmpty() ? "met" : "missed:" + missed;
  }

  /**
   * The share of a neighbours' connections that completed their loop (upgrade, Auth, heartbeat
   * acked): over the connections opened, so one closed before its upgrade counts as refused; NaN
   * before any.
   */
  static double admitted(AttackStats.Snapshot a) {
    long tries = Math.max(a.sent(), a.connects());
    return tries == 0 ? Double.NaN : (double) a.accepted() / tries;
  }

  private static String refusals(Map<String, Long> r) {
    if (r.isEmpty()) {
      return "none";
    }
    StringBuilder s = new StringBuilder();
    r.forEach((k, v) -> s.append(s.isEmpty() ? "" : ", ").append(k).append(' ').append(v));
    return s.toString();
  }
}
