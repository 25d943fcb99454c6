package io.playline.bench.hostile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A Linux control group of its own with a hard CPU quota, for the attacker process: a cgroup v2
 * {@code cpu.max} where the unified hierarchy has the {@code cpu} controller, else cgroup v1's
 * {@code cpu.cfs_quota_us}. A command started through {@link #wrap} runs inside it from its first
 * instruction (a shell joins the group, then execs the command), so every thread the JVM starts is
 * held to the quota — its event loops, compiler and collector, and the kernel work its sends do in
 * its own context.
 *
 * <p>Why a quota and not only {@code SCHED_IDLE}: a loopback {@code send} runs the receiving side's
 * TCP processing in the sender's context, where no scheduling class applies, so an idle-class
 * attacker flooding loopback still takes the node's share of the two cores. A remote attacker
 * spends its sending on its own machines; the quota holds this one to a fixed share of this host.
 */
final class CpuQuota implements AutoCloseable {
  private static final Path ROOT = Path.of("/sys/fs/cgroup");
  private static final long PERIOD_US = 100_000;

  private final Path group;
  private final Path procs;
  private final double cores;

  private CpuQuota(Path group, Path procs, double cores) {
    this.group = group;
    this.procs = procs;
    this.cores = cores;
  }

  /**
   * Creates the group, holding its members to {@code cores} of CPU time per second ({@code cores} as
   * {@link AttackerProcess.Cpu#parse} checked it).
   *
   * @throws IOException when this machine does not let this process create one (not root, no cpu
   *     controller mounted): the message says which
   */
  static CpuQuota create(double cores, String name) throws IOException {
    long quotaUs = Math.max(1_000, Math.round(cores * PERIOD_US));
    Path v2 = ROOT.resolve("cgroup.controllers");
    if (Files.isReadable(v2) && List.of(Files.readString(v2).trim().split(" ")).contains("cpu")) {
      // The root's cgroup.subtree_control must hand the cpu controller down, or cpu.max is missing.
      Path group = ROOT.resolve(name);
      return configured(group, cores, Map.of("cpu.max", quotaUs + " " + PERIOD_US));
    }
    Path v1 = ROOT.resolve("cpu");
    if (!Files.isWritable(v1.resolve("cgroup.procs"))) {
      throw new IOException("no writable cpu controller under " + ROOT + " (cgroup v2 without cpu, or v1's "
          + v1 + " missing or read-only)");
    }
    // Period first: the quota is checked against it.
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("cpu.cfs_period_us", Long.toString(PERIOD_US));
    settings.put("cpu.cfs_quota_us", Long.toString(quotaUs));
    return configured(v1.resolve(name), cores, settings);
  }

  /** Creates {@code group} and writes {@code settings} in order; a group that cannot be set is removed again. */
  static CpuQuota configured(Path group, double cores, Map<String, String> settings) throws IOException {
    Files.createDirectories(group);
    try {
      for (Map.Entry<String, String> e : settings.entrySet()) {
        Files.writeString(group.resolve(e.getKey()), e.getValue());
      }
    } catch (IOException e) {
      Files.deleteIfExists(group);
      throw new IOException("cannot set the CPU quota of " + group + ": " + e, e);
    }
    return new CpuQuota(group, group.resolve("cgroup.procs"), cores);
  }

  /** {@code command}, started through a shell that first moves itself into this group. */
  List<String> wrap(List<String> command) {
    List<String> wrapped = new ArrayList<>(List.of("sh", "-c", "echo $$ > '" + procs + "' && exec \"$@\"", "sh"));
    wrapped.addAll(command);
    return wrapped;
  }

  /** Whether {@code pid} is a member of this group (from {@code /proc/<pid>/cgroup}). */
  boolean holds(long pid) throws IOException {
    String relative = "/" + group.getFileName();
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/cgroup"), StandardCharsets.US_ASCII)) {
      String[] f = line.split(":", 3);
      if (f.length == 3 && (f[1].isEmpty() || List.of(f[1].split(",")).contains("cpu")) && f[2].equals(relative)) {
        return true;
      }
    }
    return false;
  }

  /** The quota's path and size, for the report's header. */
  String describe() {
    return String.format(Locale.ROOT, "%.2f cores (%s)", cores, group);
  }

  /** Removes the group; its members must have ended (a group with members cannot be removed). */
  @Override
  public void close() {
    try {
      Files.deleteIfExists(group);
    } catch (IOException e) {
      System.err.println("hostile: could not remove the attackers' control group " + group + ": " + e);
    }
  }
}
