package io.playline.topology;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds servers a previous run left behind in a topology directory: a launcher killed with -9
 * cannot stop its {@code redis-server} children (they do not watch their parent, unlike the JVM
 * children), and they would hold the directory's files. A {@code redis-server} runs with its data
 * directory as its working directory, so on Linux {@code /proc/PID/cwd} under the topology's
 * directory identifies it. Stateless; Linux only (elsewhere it finds nothing).
 */
final class StaleServers {
  private static final Logger log = LoggerFactory.getLogger(StaleServers.class);

  private StaleServers() {}

  /** Kills every {@code redis-server} whose working directory is under {@code dir}; returns their pids. */
  static List<Long> killUnder(Path dir) {
    List<Long> killed = new ArrayList<>();
    Path root = dir.toAbsolutePath().normalize();
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString()
        .chars().allMatch(Character::isDigit))) {
      for (Path proc : procs) {
        try {
          String comm = Files.readString(proc.resolve("comm")).trim();
          if (comm.startsWith("redis-server") && Files.readSymbolicLink(proc.resolve("cwd")).startsWith(root)) {
            long pid = Long.parseLong(proc.getFileName().toString());
            ProcessHandle.of(pid).ifPresent(h -> {
              h.destroyForcibly();
              h.onExit().orTimeout(10, TimeUnit.SECONDS).exceptionally(e -> h).join();
            });
            killed.add(pid);
          }
        } catch (IOException | RuntimeException e) {
          // Gone meanwhile, or not ours to read.
        }
      }
    } catch (IOException e) {
      return killed;
    }
    if (!killed.isEmpty()) {
      log.warn("Killed {} redis-server processes a previous run left in {}: {}", killed.size(), root, killed);
    }
    return killed;
  }
}
