package io.playline.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds and stops {@code redis-server} processes a previous run left behind: a JVM killed with -9
 * cannot stop its {@code redis-server} children (they do not watch their parent), and a new server
 * started on the same append-only directory would fight the old one over its files. An embedded
 * Redis runs with its data directory as its working directory and writes its pid to {@value
 * #PID_FILE} there; a candidate is stopped only if it really is a {@code redis-server} whose working
 * directory is that directory (so a pid file whose pid now belongs to another process stops
 * nothing). Stopping is {@code SIGTERM} (Redis then flushes its append-only file), {@code SIGKILL}
 * after 10 s. Stateless; the working-directory check needs Linux's {@code /proc} (elsewhere a
 * pid-file candidate is trusted by its command name alone and no other leftover is found).
 */
public final class LeftoverRedis {
  private static final Logger log = LoggerFactory.getLogger(LeftoverRedis.class);
  /** The pid file an embedded {@code redis-server} keeps in its data directory. */
  public static final String PID_FILE = "redis.pid";
  private static final long TERM_WAIT_SECONDS = 10;

  private LeftoverRedis() {}

  /**
   * Stops every {@code redis-server} whose working directory is {@code dir} or under it (e.g. a
   * whole topology's directory); returns their pids.
   */
  public static List<Long> stopUnder(Path dir) {
    return stop(dir, false);
  }

  /**
   * Stops the {@code redis-server} whose working directory is exactly {@code dir} (the one its pid
   * file names, or any other found there); returns their pids. A pid file naming no such process is
   * removed.
   */
  public static List<Long> stopIn(Path dir) {
    return stop(dir, true);
  }

  /** The pids of the {@code redis-server} processes whose working directory is exactly {@code dir} (Linux). */
  public static List<Long> findIn(Path dir) {
    return scanProc(dir.toAbsolutePath().normalize(), true);
  }

  private static List<Long> stop(Path dir, boolean exactly) {
    Path root = dir.toAbsolutePath().normalize();
    Set<Long> candidates = new LinkedHashSet<>();
    Path pidFile = root.resolve(PID_FILE);
    Optional<Long> recorded = readPid(pidFile);
    recorded.ifPresent(candidates::add);
    candidates.addAll(scanProc(root, exactly));
    List<Long> stopped = new ArrayList<>();
    for (long pid : candidates) {
      Optional<ProcessHandle> handle = ProcessHandle.of(pid);
      if (handle.isPresent() && isRedisIn(handle.get(), root, exactly)) {
        log.warn("Found redis-server pid {} left by a previous run in {}; stopping it before using the directory",
            pid, root);
        stop(handle.get());
        stopped.add(pid);
      } else if (recorded.isPresent() && recorded.get() == pid) {
        log.info("Pid file {} names pid {}, which is not a redis-server of this directory (a stale file); "
            + "removing it", pidFile, pid);
      }
    }
    try {
      Files.deleteIfExists(pidFile);
    } catch (IOException e) {
      log.warn("Could not remove {}: {}", pidFile, e.toString());
    }
    return stopped;
  }

  private static void stop(ProcessHandle process) {
    process.destroy();
    try {
      process.onExit().get(TERM_WAIT_SECONDS, TimeUnit.SECONDS);
      log.info("Leftover redis-server pid {} stopped (SIGTERM)", process.pid());
    } catch (Exception e) {
      process.destroyForcibly();
      process.onExit().orTimeout(TERM_WAIT_SECONDS, TimeUnit.SECONDS).exceptionally(t -> process).join();
      log.warn("Leftover redis-server pid {} did not stop within {} s of SIGTERM; killed it", process.pid(),
          TERM_WAIT_SECONDS);
    }
  }

  private static Optional<Long> readPid(Path pidFile) {
    try {
      return Optional.of(Long.parseLong(Files.readString(pidFile, StandardCharsets.US_ASCII).trim()));
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** A {@code redis-server} whose working directory is {@code root} ({@code exactly}) or under it. */
  private static boolean isRedisIn(ProcessHandle process, Path root, boolean exactly) {
    Path proc = Path.of("/proc", Long.toString(process.pid()));
    if (Files.isDirectory(proc)) {
      try {
        String comm = Files.readString(proc.resolve("comm"), StandardCharsets.UTF_8).trim();
        Path cwd = Files.readSymbolicLink(proc.resolve("cwd"));
        return comm.startsWith("redis-server") && (exactly ? cwd.equals(root) : cwd.startsWith(root));
      } catch (IOException | RuntimeException e) {
        return false; // gone meanwhile, or not ours to read
      }
    }
    return process.info().command().map(c -> c.contains("redis-server")).orElse(false);
  }

  private static List<Long> scanProc(Path root, boolean exactly) {
    List<Long> found = new ArrayList<>();
    Path procRoot = Path.of("/proc");
    if (!Files.isDirectory(procRoot)) {
      return found;
    }
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(procRoot,
        p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
      for (Path proc : procs) {
        long pid = Long.parseLong(proc.getFileName().toString());
        ProcessHandle.of(pid).filter(h -> isRedisIn(h, root, exactly)).ifPresent(h -> found.add(pid));
      }
    } catch (IOException e) {
      log.debug("Could not list /proc: {}", e.toString());
    }
    return found;
  }
}
