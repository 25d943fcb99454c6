package io.playline.bench.hostile;

import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The attackers' event-loop threads: counts the CPU they spend (per thread, {@link ThreadMXBean})
 * and, with {@link Cpu#IDLE}, moves each to Linux's {@code SCHED_IDLE} class as it starts
 * ({@code chrt --idle -p 0 <tid>}), so it runs only on CPU time the node, Redis and the honest
 * players leave. On a real edge the attackers' sending costs are spent on their machines; on this
 * benchmark's one host they would otherwise take CPU from the node they attack, and the honest
 * players' latency would measure the attacker's load as much as the node's. What the node spends
 * on the attack is unchanged by this: it is reported beside it. Thread-safe.
 */
public final class AttackerThreads extends DefaultThreadFactory {
  /** Where the attackers' sending runs. */
  public enum Cpu {
    /** {@code SCHED_IDLE}: only on CPU nobody else wants. */
    IDLE,
    /** The normal class: the attackers compete with the node for the host's cores. */
    SHARED;

    public static Cpu parse(String s) {
      return switch (s.toLowerCase(Locale.ROOT)) {
        case "idle" -> IDLE;
        case "shared" -> SHARED;
        default -> throw new IllegalArgumentException("--attacker-cpu: " + s + " (expected idle or shared)");
      };
    }
  }

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private final Cpu cpu;
  private final List<Thread> started = new CopyOnWriteArrayList<>();
  private volatile @Nullable String failure;

  public AttackerThreads(Cpu cpu) {
    super("hostile-io", true);
    this.cpu = cpu;
  }

  @Override
  protected Thread newThread(Runnable r, String name) {
    Thread t = super.newThread(() -> {
      if (cpu == Cpu.IDLE) {
        toIdleClass();
      }
      r.run();
    }, name);
    started.add(t);
    return t;
  }

  /** CPU time the attackers' threads used so far, nanoseconds (threads that ended are not counted). */
  public long cpuNanos() {
    long sum = 0;
    for (Thread t : started) {
      long n = THREADS.getThreadCpuTime(t.getId());
      sum += Math.max(0, n);
    }
    return sum;
  }

  /** What the threads run as, for the report's header: {@code idle}, {@code shared}, or why idle failed. */
  public String describe() {
    String f = failure;
    return f != null ? "shared (SCHED_IDLE refused: " + f + ")" : cpu.name().toLowerCase(Locale.ROOT);
  }

  /** Runs on the new thread itself: its Linux thread id is the last part of /proc/thread-self. */
  private void toIdleClass() {
    try {
      String tid = Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
      Process p = new ProcessBuilder("chrt", "--idle", "-p", "0", tid).redirectErrorStream(true).start();
      String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
        failure = "chrt: " + (said.isEmpty() ? "exit " + (p.isAlive() ? "timeout" : p.exitValue()) : said);
      }
    } catch (IOException | UnsupportedOperationException e) {
      failure = e.toString();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failure = "interrupted";
    }
  }
}
