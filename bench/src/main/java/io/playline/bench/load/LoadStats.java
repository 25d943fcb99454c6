package io.playline.bench.load;

import io.playline.time.Time;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * One generator process's running counters and its ack-latency recorder. Thread-safe: every
 * event loop records into it without locks; {@link #snapshot} may run on any thread.
 */
public final class LoadStats {
  /** Highest latency the histograms track; slower acks are clamped to it (and still counted). */
  public static final long MAX_LATENCY_MICROS = TimeUnit.SECONDS.toMicros(120);
  static final int MAX_CODE = 32;

  final AtomicInteger open = new AtomicInteger();
  final LongAdder connectFailures = new LongAdder();
  final LongAdder sent = new LongAdder();
  final LongAdder acked = new LongAdder();
  final LongAdder skipped = new LongAdder();
  private final AtomicLongArray errors = new AtomicLongArray(MAX_CODE);
  private final Map<Integer, LongAdder> closes = new ConcurrentHashMap<>();
  private final Recorder latency = new Recorder(MAX_LATENCY_MICROS, 3);

  void ack(long latencyNanos) {
    acked.increment();
    long micros = Math.max(0, Math.min(MAX_LATENCY_MICROS, latencyNanos / 1000));
    latency.recordValue(micros);
  }

  void error(int code) {
    errors.incrementAndGet(Math.max(0, Math.min(MAX_CODE - 1, code)));
  }

  /** The connection closed: by the server with a WebSocket close code or gRPC status, or locally (0). */
  void closed(int code) {
    closes.computeIfAbsent(code, c -> new LongAdder()).increment();
  }

  /** Counters so far and the latencies recorded since the previous snapshot. */
  public LoadSnapshot snapshot() {
    Histogram interval = latency.getIntervalHistogram();
    long[] errorCounts = new long[MAX_CODE];
    for (int i = 0; i < MAX_CODE; i++) {
      errorCounts[i] = errors.get(i);
    }
    Map<Integer, Long> closeCounts = new HashMap<>();
    closes.forEach((code, n) -> closeCounts.put(code, n.sum()));
    return new LoadSnapshot(Time.SYSTEM.nanoTime(), open.get(), connectFailures.sum(), sent.sum(), acked.sum(),
        skipped.sum(), errorCounts, closeCounts, interval);
  }
}
