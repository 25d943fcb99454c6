package io.playline.bench.jmh;

import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.playline.node.write.StageHistogram;
import io.playline.time.Time;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * One heartbeat's record of a stage of its time in the node ({@code playline_heartbeat_stage_seconds}),
 * as each connection's loop makes it when it hands the ack on: the clock read and the duration
 * recorded, into the Micrometer timer with a percentile histogram (10 µs to 10 s) the stages were
 * until 2026-12-08, and into {@link StageHistogram}, what they are since. On one thread, and on two
 * recording into the same meter at once (a node's two players' loops). Durations cycle through 1 024
 * values from 11 µs to 2.8 ms, so that the bucket changes from record to record as live; {@code
 * clockOnly} is the clock reads alone, which both include. JMH's threads are not Netty's, so a
 * {@code StageHistogram} finds the thread's number through a JDK {@code ThreadLocal} here, slower
 * than on a node's loop.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class StageTimerBenchmark {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Timer timer = Timer.builder("stage").publishPercentileHistogram()
      .minimumExpectedValue(Duration.ofNanos(10_000)).maximumExpectedValue(Duration.ofSeconds(10)).register(registry);
  private final StageHistogram histogram = new StageHistogram();
  private final long[] ages = ages();

  /** Each thread's place in the durations. */
  @State(Scope.Thread)
  public static class Cursor {
    int next;

    long age(long[] ages) {
      return ages[next++ & (ages.length - 1)];
    }
  }

  /** The clock reads alone, what both records below include. */
  @Benchmark
  public long clockOnly(Cursor c) {
    long received = Time.SYSTEM.nanoTime() - c.age(ages);
    return Time.SYSTEM.nanoTime() - received;
  }

  @Benchmark
  public void micrometerTimer(Cursor c) {
    long received = Time.SYSTEM.nanoTime() - c.age(ages);
    timer.record(Time.SYSTEM.nanoTime() - received, TimeUnit.NANOSECONDS);
  }

  @Benchmark
  public void stageHistogram(Cursor c) {
    long received = Time.SYSTEM.nanoTime() - c.age(ages);
    histogram.record(Time.SYSTEM.nanoTime() - received);
  }

  @Benchmark
  @Threads(2)
  public void micrometerTimerTwoThreads(Cursor c) {
    micrometerTimer(c);
  }

  @Benchmark
  @Threads(2)
  public void stageHistogramTwoThreads(Cursor c) {
    stageHistogram(c);
  }

  private static long[] ages() {
    long[] out = new long[1024];
    for (int i = 0; i < out.length; i++) {
      out[i] = 10_000L + (long) (Math.pow(1.0078, (i * 523) % out.length) * 1_000); // 11 µs to 2.8 ms
    }
    return out;
  }
}
