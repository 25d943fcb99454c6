package io.playline.bench.heartbeats;

import io.playline.bench.probe.PrometheusText;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Finds a window that spans exactly {@code cycles} write-back flushes of one node, so Kafka records
 * and HBase mutations per heartbeat are steady-state figures rather than an accident of where a
 * short window cut the 60 s flush cycle. Fed one metrics sample per second; a flush shows as a step
 * of {@code playline_writeback_flushes_total{outcome="success"}}. Heartbeats and Kafka records are
 * counted between two flush samples; HBase mutations between the moments the job settled after
 * each of those flushes (no new job records or mutations for {@link #SETTLED_SAMPLES} samples).
 *
 * <p>Not thread-safe: the benchmark's control thread feeds it.
 */
final class FlushCycles {
  static final int SETTLED_SAMPLES = 3;

  /** The window's figures. */
  record Window(double heartbeats, double kafkaRecords, double hbaseMutations, double seconds) {}

  private record Point(long nanos, PrometheusText m) {}

  private final int cycles;
  private final List<Point> flushes = new ArrayList<>();
  private final List<Point> settled = new ArrayList<>();
  private @Nullable Point previous;
  private double lastFlushCount = Double.NaN;
  private boolean awaitingSettle;
  private int quietSamples;

  FlushCycles(int cycles) {
    this.cycles = cycles;
  }

  void feed(long nanos, PrometheusText m) {
    Point p = new Point(nanos, m);
    double flushCount = m.sum("playline_writeback_flushes_total", "outcome=\"success\"");
    if (!Double.isNaN(lastFlushCount) && flushCount > lastFlushCount && settled.size() <= cycles) {
      flushes.add(p);
      awaitingSettle = true;
      quietSamples = 0;
    } else if (awaitingSettle && previous != null) {
      boolean quiet = m.delta(previous.m(), "playline_job_records_total") == 0
          && m.delta(previous.m(), "playline_job_hbase_mutations_total") == 0;
      quietSamples = quiet ? quietSamples + 1 : 0;
      if (quietSamples >= SETTLED_SAMPLES) {
        settled.add(p);
        awaitingSettle = false;
      }
    }
    lastFlushCount = flushCount;
    previous = p;
  }

  /** True once {@code cycles + 1} flushes were seen and the job settled after each. */
  boolean done() {
    return settled.size() > cycles;
  }

  /** Flushes seen so far. */
  int flushesSeen() {
    return flushes.size();
  }

  /** The window, or null before {@link #done()}. */
  @Nullable Window window() {
    if (!done()) {
      return null;
    }
    Point a = flushes.get(0);
    Point b = flushes.get(cycles);
    return new Window(
        b.m().delta(a.m(), "playline_heartbeat_acks_total"),
        b.m().delta(a.m(), "playline_kafka_records_sent_total", "topic=\"history\""),
        settled.get(cycles).m().delta(settled.get(0).m(), "playline_job_hbase_mutations_total"),
        (b.nanos() - a.nanos()) / 1e9);
  }
}
