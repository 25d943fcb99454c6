package io.playline.bench.probe;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads a process's resident memory ({@code VmRSS} of {@code /proc/<pid>/status}) and CPU time
 * ({@code utime + stime} of {@code /proc/<pid>/stat}, or of some of its threads). Linux only;
 * stateless; any thread.
 */
public final class ProcStats {
  /** USER_HZ: the unit of utime/stime; 100 on every Linux this runs on (x86-64, arm64). */
  static final long TICKS_PER_SECOND = 100;

  private ProcStats() {}

  /** Resident set size in bytes, or -1 when the process is gone. */
  public static long rssBytes(long pid) {
    try {
      return parseRssKb(Files.readString(Path.of("/proc", Long.toString(pid), "status"), StandardCharsets.US_ASCII))
          * 1024;
    } catch (IOException e) {
      return -1;
    }
  }

  /** User plus system CPU time in nanoseconds, or -1 when the process is gone. */
  public static long cpuNanos(long pid) {
    try {
      return parseCpuTicks(Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII))
          * (1_000_000_000L / TICKS_PER_SECOND);
    } catch (IOException e) {
      return -1;
    }
  }

  /**
   * User plus system CPU time in nanoseconds of {@code pid}'s live threads whose name starts with
   * {@code threadPrefix} ({@code /proc/<pid>/task/<tid>/stat}; Linux keeps the first 15 characters
   * of a thread's name, so the prefix must be shorter), or -1 when the process is gone or no thread
   * has that prefix (a renamed thread reads as unknown, not as idle). A thread that ended between two
   * calls takes its time with it: meant for long-lived threads such as a node's I/O loops.
   */
  public static long threadsCpuNanos(long pid, String threadPrefix) {
    long ticks = 0;
    boolean matched = false;
    try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        String stat;
        try {
          stat = Files.readString(task.resolve("stat"), StandardCharsets.US_ASCII);
        } catch (IOException e) {
          continue; // the thread ended while listed
        }
        if (threadName(stat).startsWith(threadPrefix)) {
          ticks += parseCpuTicks(stat);
          matched = true;
        }
      }
    } catch (IOException | UncheckedIOException e) { // the listing fails when the process ends mid-way
      return -1;
    }
    return matched ? ticks * (1_000_000_000L / TICKS_PER_SECOND) : -1;
  }

  /** The command (a thread's name) of a stat line: between the first '(' and the last ')'. */
  static String threadName(String stat) {
    return stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  }

  /** The VmRSS line of a status file, in kB. */
  static long parseRssKb(String status) {
    for (String line : status.split("\n")) {
      if (line.startsWith("VmRSS:")) {
        String[] f = line.substring("VmRSS:".length()).trim().split("\\s+");
        return Long.parseLong(f[0]);
      }
    }
    throw new IllegalArgumentException("no VmRSS line");
  }

  /** utime + stime (fields 14 and 15) of a stat line; the command name may contain spaces and parens. */
  static long parseCpuTicks(String stat) {
    int close = stat.lastIndexOf(')');
    String[] f = stat.substring(close + 2).trim().split(" ");
    // f[0] is field 3 (state), so field n is f[n - 3].
    return Long.parseLong(f[14 - 3]) + Long.parseLong(f[15 - 3]);
  }

  /** The pid of a live process whose command line contains every one of {@code parts}, or -1. */
  public static long findPid(String... parts) {
    try (var dirs = Files.list(Path.of("/proc"))) {
      for (Path dir : (Iterable<Path>) dirs::iterator) {
        String name = dir.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        String cmd;
        try {
          cmd = new String(Files.readAllBytes(dir.resolve("cmdline")), StandardCharsets.UTF_8).replace('\0', ' ');
        } catch (IOException e) {
          continue;
        }
        boolean all = !cmd.isEmpty();
        for (String p : parts) {
          all &= cmd.contains(p);
        }
        if (all) {
          return Long.parseLong(name);
        }
      }
    } catch (IOException e) {
      return -1;
    }
    return -1;
  }
}
