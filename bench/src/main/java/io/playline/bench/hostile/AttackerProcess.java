package io.playline.bench.hostile;

import io.playline.bench.probe.ProcStats;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The hostile bench's attackers in a JVM of their own ({@link AttackerMain}), started once per run
 * and driven over its stdin/stdout ({@link AttackWire}). On a real edge the attackers' sending costs
 * are spent on their own machines; on this benchmark's one host they would otherwise take CPU from
 * the node they attack, and the honest players' latency would measure the attackers' load (and, in
 * one JVM, their collections and deoptimizations) as much as the node's. So by default ({@code
 * quota:0.25}) the process runs in a control group held to a quarter of a core ({@link CpuQuota}):
 * its event loop, collector, compiler and the kernel work its loopback sends do for the receiver
 * alike. {@link Cpu#IDLE} runs it in Linux's {@code SCHED_IDLE} class instead ({@code chrt --idle
 * 0}), which holds back its threads but not that kernel work. What the node spends on the attack is
 * unchanged by either: it is reported beside it.
 *
 * <p>Control thread only.
 */
final class AttackerProcess implements AutoCloseable {
  /**
   * Where the attackers run: {@code idle} ({@code SCHED_IDLE}: only on CPU nobody else wants),
   * {@code shared} (the normal class: they compete with the node for the host's cores) or {@code
   * quota:<cores>} (the normal class, held to that many cores by a {@link CpuQuota}).
   *
   * @param quotaCores the quota's cores, 0 for none
   */
  record Cpu(Mode mode, double quotaCores) {
    enum Mode { IDLE, SHARED, QUOTA }

    static final Cpu IDLE = new Cpu(Mode.IDLE, 0);
    static final Cpu SHARED = new Cpu(Mode.SHARED, 0);

    static Cpu parse(String s) {
      String v = s.toLowerCase(Locale.ROOT);
      if (v.equals("idle")) {
        return IDLE;
      }
      if (v.equals("shared")) {
        return SHARED;
      }
      if (v.startsWith("quota:")) {
        try {
          double cores = Double.parseDouble(v.substring("quota:".length()));
          if (cores > 0 && cores <= 64) {
            return new Cpu(Mode.QUOTA, cores);
          }
        } catch (NumberFormatException e) {
          // refused below
        }
      }
      throw new IllegalArgumentException("--attacker-cpu: " + s + " (expected idle, shared or quota:<cores>, "
          + "e.g. quota:0.25)");
    }
  }

  /** Linux's scheduling policy number of {@code SCHED_IDLE} ({@code /proc/<pid>/stat}, field 41). */
  static final int SCHED_IDLE = 5;

  private final Process process;
  private final PrintWriter in;
  private final BufferedReader out;
  private final String describe;
  private final @Nullable CpuQuota quota;

  private AttackerProcess(Process process, String describe, @Nullable CpuQuota quota) {
    this.process = process;
    this.quota = quota;
    this.in = new PrintWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), true);
    this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    this.describe = describe;
  }

  /**
   * Starts the attacker JVM on this JVM's classpath; with {@link Cpu.Mode#QUOTA} in a {@link
   * CpuQuota} of its own, with {@link Cpu.Mode#IDLE} (or a quota this machine refuses) under {@code
   * chrt --idle 0}, or in the normal class where this machine refuses that too; {@link #describe()}
   * says which, and why.
   */
  static AttackerProcess start(Cpu cpu) throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command = new ArrayList<>(List.of(java, "-Xms128m", "-Xmx1g", "-XX:+UseParallelGC",
        "-cp", System.getProperty("java.class.path"), AttackerMain.class.getName()));
    String describe = "shared (own JVM)";
    CpuQuota quota = null;
    String quotaRefused = null;
    if (cpu.mode() == Cpu.Mode.QUOTA) {
      try {
        quota = CpuQuota.create(cpu.quotaCores(), "playline-bench-attackers-" + ProcessHandle.current().pid());
        command = quota.wrap(command);
        describe = "quota (own JVM, " + quota.describe() + ")";
      } catch (IOException refused) {
        quotaRefused = "CPU quota refused: " + refused.getMessage();
      }
    }
    if (cpu.mode() == Cpu.Mode.IDLE || quotaRefused != null) {
      // Where the machine refuses a quota, SCHED_IDLE is the next best hold on the attackers.
      String refused = chrtRefusal();
      String also = quotaRefused == null ? "" : "; " + quotaRefused;
      if (refused == null) {
        command.addAll(0, List.of("chrt", "--idle", "0"));
        describe = "idle (own JVM, SCHED_IDLE" + also + ")";
      } else {
        describe = "shared (own JVM; SCHED_IDLE refused: " + refused + also + ")";
      }
    }
    Process p;
    try {
      p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    } catch (IOException e) {
      if (quota != null) {
        quota.close();
      }
      throw e;
    }
    AttackerProcess attackers = new AttackerProcess(p, describe, quota);
    String up = attackers.readLine();
    if (!up.equals(AttackWire.OK)) {
      attackers.close();
      throw new IllegalStateException("attacker process: " + up);
    }
    return attackers;
  }

  /** Whether the attacker process is held by a CPU quota of its own (false where the machine refused one). */
  boolean inQuota() throws IOException {
    return quota != null && quota.holds(process.pid());
  }

  /** Null when {@code chrt --idle 0} runs a command here, else what it said. */
  private static String chrtRefusal() {
    try {
      Process p = new ProcessBuilder("chrt", "--idle", "0", "true").redirectErrorStream(true).start();
      String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return "chrt: timeout";
      }
      return p.exitValue() == 0 ? null : "chrt: " + (said.isEmpty() ? "exit " + p.exitValue() : said);
    } catch (IOException e) {
      return e.toString();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  /** Starts {@code kinds} against {@code target} for {@code length}; the returned set stops them. */
  Running attack(List<AttackKind> kinds, AttackTarget target, Duration length) {
    call(AttackWire.start(kinds, length, target));
    return new Running();
  }

  /** CPU time of the whole attacker process so far (its JIT and collector included), nanoseconds. */
  long cpuNanos() {
    return ProcStats.cpuNanos(process.pid());
  }

  /** The attacker process's Linux scheduling policy ({@link #SCHED_IDLE}, or 0 for the normal class). */
  int policy() throws IOException {
    String stat = Files.readString(Path.of("/proc/" + process.pid() + "/stat"));
    // Fields after the command name (which may hold spaces) start at the last ')'.
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
    return Integer.parseInt(f[41 - 3]);
  }

  /** How the attackers run, for the report's header. */
  String describe() {
    return describe;
  }

  private String call(String line) {
    in.println(line);
    String answer = readLine();
    if (!answer.equals(AttackWire.OK) && !answer.matches("\\d+")) {
      throw new IllegalStateException("attacker process: " + answer.replace('\t', ' '));
    }
    return answer;
  }

  private String readLine() {
    try {
      String line = out.readLine();
      if (line == null) {
        throw new IllegalStateException("attacker process ended" + (process.isAlive() ? "" : " (exit "
            + process.exitValue() + "; its output is above)"));
      }
      return line;
    } catch (IOException e) {
      throw new UncheckedIOException("attacker process", e);
    }
  }

  @Override
  public void close() {
    in.println(AttackWire.EXIT);
    in.close();
    try {
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    if (quota != null) {
      quota.close();
    }
  }

  /** The attacks of one phase (or of a warm-up), in the attacker process. */
  final class Running implements AutoCloseable {
    private Running() {}

    /** Each attacker's counters now. */
    List<AttackStats.Snapshot> snapshots() {
      int n = Integer.parseInt(call(AttackWire.SNAPSHOT));
      List<AttackStats.Snapshot> s = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        s.add(AttackWire.snapshot(readLine()));
      }
      return s;
    }

    /** One line of each attacker's progress, for the per-second report. */
    String progressLine() {
      return AttackerSet.progressLine(snapshots());
    }

    @Override
    public void close() {
      call(AttackWire.STOP);
    }
  }
}
