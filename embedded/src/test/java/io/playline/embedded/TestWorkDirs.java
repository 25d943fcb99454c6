package io.playline.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Hands out the work directories of the real servers a test JVM starts, and checks that no server
 * process outlives its test. Shared through this module's test jar with {@code testing}'s extensions.
 *
 * <p>They live under the system property {@value #PROPERTY} (Surefire sets it to {@code
 * target/real-servers}), else under one temporary directory per JVM. Thread-safe.
 */
public final class TestWorkDirs {

  /** The system property naming the base directory. */
  public static final String PROPERTY = "playline.test.workdir";

  private static @Nullable Path fallbackBase;

  private TestWorkDirs() {}

  /**
   * Returns {@code base/name}, emptied: whatever a previous run left there is deleted, so call
   * this once per server, before starting it.
   */
  public static Path freshDir(String name) {
    if (name.isEmpty() || name.contains("/") || name.contains("..")) {
      throw new IllegalArgumentException("name: " + name + " (expected: one path segment)");
    }
    Path dir = base().resolve(name);
    try {
      WorkDirs.deleteRecursively(dir);
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot prepare test work dir " + dir, e);
    }
  }

  private static synchronized Path base() {
    String configured = System.getProperty(PROPERTY);
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured).toAbsolutePath();
    }
    if (fallbackBase == null) {
      try {
        fallbackBase = Files.createTempDirectory("playline-real-servers");
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot create a temporary work dir", e);
      }
    }
    return fallbackBase;
  }

  /** Returns the pids of this JVM's live descendant processes whose command line names {@code dir}. */
  public static Set<Long> processesMentioning(Path dir) {
    String needle = dir.toAbsolutePath().toString();
    return ProcessHandle.current().descendants()
        .filter(ProcessHandle::isAlive)
        .filter(p -> p.info().arguments()
            .map(args -> String.join(" ", args).contains(needle)).orElse(false))
        .map(ProcessHandle::pid)
        .collect(Collectors.toSet());
  }
}
