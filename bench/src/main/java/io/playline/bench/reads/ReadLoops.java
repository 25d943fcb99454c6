package io.playline.bench.reads;

import io.playline.bench.load.LoadSnapshot;
import io.playline.bench.probe.ProcStats;
import io.playline.time.Time;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.HdrHistogram.Recorder;
import org.jspecify.annotations.Nullable;

/**
 * How {@code bench reads} drives one kind of read: closed-loop with a fixed number in flight, or
 * open-loop at a fixed rate, each with a warm-up and a measured window, and the CPU the server,
 * redis-server and this process spent in that window per answered request. Control thread only
 * (the reads' stages complete on client threads).
 */
final class ReadLoops {
  /** Requests an open-loop run keeps in flight at most; a due request beyond it is counted as skipped. */
  static final int PACED_MAX_IN_FLIGHT = 4096;

  /**
   * One run's figures; CPU in µs per answered request, NaN when unknown ({@code playerLoopsCpu}: the
   * server's player I/O loops, {@value #PLAYER_LOOPS} threads, part of {@code serverCpu}); heartbeat
   * columns NaN without them.
   */
  record Result(String kind, int pass, double perSecond, double p50, double p99, double p999, double serverCpu,
      double playerLoopsCpu, double redisCpu, double ownCpu, long errors, double heartbeatsPerSecond,
      double heartbeatP99) {}

  /** The name prefix of a node's player I/O loop threads ({@code EventLoops}'s {@code playline-io} group). */
  static final String PLAYER_LOOPS = "playline-io-";

  private final int concurrency;
  private final long serverPid;
  private final long redisPid;
  private final Supplier<@Nullable LoadSnapshot> heartbeats;

  /**
   * @param heartbeats the mixed load's acks so far, or null without one
   */
  ReadLoops(int concurrency, long serverPid, long redisPid, Supplier<@Nullable LoadSnapshot> heartbeats) {
    this.concurrency = concurrency;
    this.serverPid = serverPid;
    this.redisPid = redisPid;
    this.heartbeats = heartbeats;
  }

  long serverPid() {
    return serverPid;
  }

  /**
   * Runs {@code read} closed-loop with the configured number in flight: warm-up, then the measured
   * window. {@code serverPid} -1 = no server process is involved (a baseline).
   */
  Result closed(String kind, int pass, java.time.Duration warm, java.time.Duration window, long serverPid,
      Supplier<CompletionStage<?>> read) throws InterruptedException {
    Recorder latency = new Recorder(3);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicBoolean measuring = new AtomicBoolean();
    AtomicLong done = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    AtomicLong firstError = new AtomicLong();
    Semaphore stopped = new Semaphore(0);
    List<Throwable> sample = new CopyOnWriteArrayList<>();
    for (int i = 0; i < concurrency; i++) {
      new Runnable() {
        @Override
        public void run() {
          if (stop.get()) {
            stopped.release();
            return;
          }
          long start = Time.SYSTEM.nanoTime();
          issue(read).whenComplete((v, error) -> {
            if (measuring.get()) {
              if (error == null) {
                latency.recordValue(Math.max(1, (Time.SYSTEM.nanoTime() - start) / 1000));
                done.incrementAndGet();
              } else {
                errors.incrementAndGet();
                if (firstError.compareAndSet(0, 1)) {
                  sample.add(error);
                }
              }
            }
            if (error != null) {
              // A failed stage may have completed on this very stack: go on from another one.
              ForkJoinPool.commonPool().execute(this);
            } else {
              run();
            }
          });
        }
      }.run();
    }
    Thread.sleep(warm.toMillis());
    latency.reset();
    long[] before = cpuNow(serverPid);
    LoadSnapshot hbFrom = heartbeats.get();
    long startNanos = Time.SYSTEM.nanoTime();
    measuring.set(true);
    Thread.sleep(window.toMillis());
    measuring.set(false);
    long elapsed = Time.SYSTEM.nanoTime() - startNanos;
    double[] hb = heartbeatFigures(hbFrom, heartbeats.get());
    long[] after = cpuNow(serverPid);
    stop.set(true);
    if (!stopped.tryAcquire(concurrency, 30, TimeUnit.SECONDS)) {
      System.out.println("  WARNING: requests still in flight 30 s after the run");
    }
    var h = latency.getIntervalHistogram();
    long n = done.get();
    Result r = new Result(kind, pass, n * 1e9 / elapsed, h.getValueAtPercentile(50) / 1000.0,
        h.getValueAtPercentile(99) / 1000.0, h.getValueAtPercentile(99.9) / 1000.0,
        perRequest(before[0], after[0], n), perRequest(before[3], after[3], n), perRequest(before[1], after[1], n),
        perRequest(before[2], after[2], n), errors.get(), hb[0], hb[1]);
    System.out.printf(Locale.ROOT, "  %-19s p%d %9.0f req/s  p50 %.2f ms  p99 %.2f ms  errors %d%s%s%n", kind, pass,
        r.perSecond(), r.p50(), r.p99(), r.errors(), heartbeatNote(r),
        sample.isEmpty() ? "" : " (first: " + sample.get(0) + ")");
    return r;
  }

  /**
   * Runs {@code read} open-loop at {@code rate} requests/s: warm-up, then the measured window; a
   * request's latency counts from when it was due, not from when it was sent.
   */
  Result paced(String kind, int pass, double rate, java.time.Duration warm, java.time.Duration window,
      Supplier<CompletionStage<?>> read) throws InterruptedException {
    Recorder latency = new Recorder(3);
    AtomicLong done = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    AtomicLong inFlight = new AtomicLong();
    long skipped = 0;
    long interval = Math.max(1, (long) (1e9 / rate));
    long start = Time.SYSTEM.nanoTime();
    long measureFrom = start + warm.toNanos();
    long end = measureFrom + window.toNanos();
    long[] before = null;
    LoadSnapshot hbFrom = null;
    for (long due = start; ; ) {
      long now = Time.SYSTEM.nanoTime();
      if (now - end >= 0) {
        break;
      }
      if (before == null && now - measureFrom >= 0) {
        before = cpuNow(serverPid);
        hbFrom = heartbeats.get();
      }
      for (; due - now <= 0; due += interval) {
        if (inFlight.get() >= PACED_MAX_IN_FLIGHT) {
          skipped++;
          continue;
        }
        long intended = due;
        boolean counted = intended - measureFrom >= 0;
        inFlight.incrementAndGet();
        issue(read).whenComplete((v, error) -> {
          inFlight.decrementAndGet();
          if (!counted) {
            return;
          }
          if (error == null) {
            latency.recordValue(Math.max(1, (Time.SYSTEM.nanoTime() - intended) / 1000));
            done.incrementAndGet();
          } else {
            errors.incrementAndGet();
          }
        });
      }
      LockSupport.parkNanos(Math.min(Math.max(due - Time.SYSTEM.nanoTime(), 0), 1_000_000));
    }
    double[] hb = heartbeatFigures(hbFrom, heartbeats.get());
    long[] after = cpuNow(serverPid);
    long[] measuredFrom = before != null ? before : after;
    long drainUntil = Time.SYSTEM.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (inFlight.get() > 0 && Time.SYSTEM.nanoTime() - drainUntil < 0) {
      Thread.sleep(5);
    }
    var h = latency.getIntervalHistogram();
    long n = done.get();
    Result r = new Result(kind, pass, n * 1e9 / window.toNanos(), h.getValueAtPercentile(50) / 1000.0,
        h.getValueAtPercentile(99) / 1000.0, h.getValueAtPercentile(99.9) / 1000.0,
        perRequest(measuredFrom[0], after[0], n), perRequest(measuredFrom[3], after[3], n),
        perRequest(measuredFrom[1], after[1], n), perRequest(measuredFrom[2], after[2], n), errors.get() + skipped,
        hb[0], hb[1]);
    System.out.printf(Locale.ROOT, "  %-19s p%d %9.0f req/s (offered %.0f)  p50 %.2f ms  p99 %.2f ms  errors %d, "
        + "skipped %d%s%n", kind, pass, r.perSecond(), rate, r.p50(), r.p99(), r.errors() - skipped, skipped,
        heartbeatNote(r));
    return r;
  }

  /**
   * CPU so far of {@code serverPid}, redis-server, this process and {@code serverPid}'s player I/O
   * loops, in ns (-1 = unknown).
   */
  long[] cpuNow(long serverPid) {
    return new long[] {cpu(serverPid), cpu(redisPid), ProcStats.cpuNanos(ProcessHandle.current().pid()),
        serverPid <= 0 ? -1 : ProcStats.threadsCpuNanos(serverPid, PLAYER_LOOPS)};
  }

  /** Heartbeats acked per second between two snapshots and the p99 of the later one's interval (ms). */
  static double[] heartbeatFigures(@Nullable LoadSnapshot from, @Nullable LoadSnapshot to) {
    if (from == null || to == null) {
      return new double[] {Double.NaN, Double.NaN};
    }
    double seconds = (to.nanos() - from.nanos()) / 1e9;
    return new double[] {(to.acked() - from.acked()) / seconds, to.interval().getValueAtPercentile(99) / 1000.0};
  }

  static String heartbeatNote(Result r) {
    return Double.isNaN(r.heartbeatsPerSecond()) ? "" : String.format(Locale.ROOT,
        "  [heartbeats %.0f/s acked, p99 %.2f ms]", r.heartbeatsPerSecond(), r.heartbeatP99());
  }

  /** Starts one read; a read that throws instead of failing its stage fails a stage all the same. */
  static CompletionStage<?> issue(Supplier<CompletionStage<?>> read) {
    try {
      return read.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private static long cpu(long pid) {
    return pid <= 0 ? -1 : ProcStats.cpuNanos(pid);
  }

  static double perRequest(long before, long after, long requests) {
    return before < 0 || after < 0 || requests == 0 ? Double.NaN : (after - before) / 1000.0 / requests;
  }
}
