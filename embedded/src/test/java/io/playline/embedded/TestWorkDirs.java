package io.playline.embedded;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

/** Work dirs for tests of real servers, and a check that no server process outlives its test. */
final class TestWorkDirs {

  private TestWorkDirs() {}

  /**
   * Returns an empty {@code name} directory below the build's work dir ({@code
   * playline.test.workdir}); what a run leaves there stays for a look until the next run.
   */
  static Path fresh(String name) throws IOException {
    Path base = Path.of(System.getProperty("playline.test.workdir", "target/real-servers"));
    Path dir = base.resolve(name);
    WorkDirs.deleteRecursively(dir);
    return Files.createDirectories(dir);
  }

  /** Returns the pids of this JVM's live descendant processes whose command line names {@code dir}. */
  static Set<Long> processesMentioning(Path dir) {
    String needle = dir.toAbsolutePath().toString();
    return ProcessHandle.current().descendants()
        .filter(ProcessHandle::isAlive)
        .filter(p -> p.info().arguments()
            .map(args -> String.join(" ", args).contains(needle)).orElse(false))
        .map(ProcessHandle::pid)
        .collect(Collectors.toSet());
  }
}
