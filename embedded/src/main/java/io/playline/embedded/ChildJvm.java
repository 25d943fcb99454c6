package io.playline.embedded;

import io.playline.embedded.internal.ExitWithParent;
import io.playline.time.Time;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Java server running as a child process of this JVM, with its stdout and stderr appended to a
 * log file, that does not outlive this JVM.
 *
 * <p>Two guards: a shutdown hook of this JVM stops every child still running (SIGTERM, then
 * SIGKILL after {@link #EXIT_HOOK_GRACE}), and each child runs under {@link ExitWithParent}, which
 * exits it when its stdin pipe closes, as it does when this JVM is killed with {@code kill -9}.
 * Thread-safe.
 */
final class ChildJvm {

  private static final Logger log = LoggerFactory.getLogger(ChildJvm.class);
  private static final Duration EXIT_HOOK_GRACE = Duration.ofSeconds(10);
  private static final Duration KILL_WAIT = Duration.ofSeconds(10);
  private static final Set<ChildJvm> RUNNING = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(ChildJvm::stopAllOnExit, "child-jvm-reaper"));
  }

  /**
   * What to run.
   *
   * @param name for logs and errors, e.g. {@code "kafka-2"}
   * @param workDir the child's working directory; its {@code java.io.tmpdir} is {@code workDir/tmp}
   * @param logFile receives the child's stdout and stderr, appended
   * @param classpath the child's class path; null for this JVM's ({@code java.class.path})
   * @param heapMegabytes the child's maximum heap ({@code -Xmx})
   * @param jvmArgs further JVM options, after the defaults
   */
  record Spec(String name, Path workDir, Path logFile, @Nullable String classpath,
      int heapMegabytes, List<String> jvmArgs, String mainClass, List<String> args) {
    Spec {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(workDir, "workDir");
      Objects.requireNonNull(logFile, "logFile");
      Objects.requireNonNull(mainClass, "mainClass");
      jvmArgs = List.copyOf(jvmArgs);
      args = List.copyOf(args);
      checkHeap(heapMegabytes);
    }
  }

  private final Spec spec;
  private final Process process;

  private ChildJvm(Spec spec, Process process) {
    this.spec = spec;
    this.process = process;
  }

  /** Throws if {@code heapMegabytes} is too small for any of the servers started this way. */
  static void checkHeap(int heapMegabytes) {
    if (heapMegabytes < 64) {
      throw new IllegalArgumentException("heapMegabytes: " + heapMegabytes + " (expected: >= 64)");
    }
  }

  /** Starts the child and returns at once; readiness is the caller's to check. */
  static ChildJvm start(Spec spec) throws IOException {
    Path tmp = spec.workDir().resolve("tmp");
    Files.createDirectories(tmp);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx" + spec.heapMegabytes() + "m");
    // Small heaps on two shared cores: the serial collector has the least overhead.
    command.add("-XX:+UseSerialGC");
    command.add("-Djava.io.tmpdir=" + tmp);
    command.add("-Djava.awt.headless=true");
    command.add("-Dlogback.configurationFile=" + writeLogbackConfig(spec.workDir()));
    command.addAll(spec.jvmArgs());
    List<String> classpath = classpath(spec.classpath());
    command.add("-cp");
    int classpathIndex = command.size();
    command.add(String.join(File.pathSeparator, classpath));
    command.add(ExitWithParent.class.getName());
    command.add(spec.mainClass());
    command.addAll(spec.args());
    // The class path can be kilobytes; the log's header (and so error messages) shortens it.
    List<String> shown = new ArrayList<>(command);
    shown.set(classpathIndex, "<" + classpath.size() + " entries from " + classpath.get(0) + ">");
    Files.writeString(spec.logFile(), "=== " + Time.SYSTEM.instant() + " starting " + spec.name() + ": "
        + String.join(" ", shown) + System.lineSeparator(), StandardCharsets.UTF_8,
        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    Process process = new ProcessBuilder(command)
        .directory(spec.workDir().toFile())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(spec.logFile().toFile()))
        .start();
    // stdin stays an open pipe that nobody writes to: ExitWithParent's cue is its closing.
    ChildJvm child = new ChildJvm(spec, process);
    RUNNING.add(child);
    process.onExit().thenRun(() -> RUNNING.remove(child));
    log.debug("Started {} (pid {}), log {}", spec.name(), process.pid(), spec.logFile());
    return child;
  }

  /**
   * Writes the child's logging configuration: INFO and up to stdout, which goes to its log file.
   * Kafka and HBase log through SLF4J (log4j 2 calls are routed to it by log4j-to-slf4j); logback
   * is the binding on Playline's class paths. Without this file logback would log at DEBUG, and a
   * test class path's {@code logback-test.xml} would win over a plain {@code logback.xml}.
   */
  private static Path writeLogbackConfig(Path workDir) throws IOException {
    Path file = workDir.resolve("logback-child.xml");
    Files.writeString(file, """
        <configuration>
          <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
            <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>
          </appender>
          <root level="INFO"><appender-ref ref="STDOUT"/></root>
        </configuration>
        """, StandardCharsets.UTF_8);
    return file;
  }

  /**
   * The given class path, or this JVM's, without empty entries (each would add the working
   * directory), and with the location of {@link ExitWithParent} if missing.
   */
  private static List<String> classpath(@Nullable String configured) throws IOException {
    String base = configured != null ? configured : System.getProperty("java.class.path", "");
    List<String> entries = new ArrayList<>();
    for (String entry : base.split(File.pathSeparator)) {
      if (!entry.isEmpty()) {
        entries.add(entry);
      }
    }
    String own;
    try {
      own = Path.of(ExitWithParent.class.getProtectionDomain().getCodeSource().getLocation().toURI())
          .toString();
    } catch (URISyntaxException | RuntimeException e) {
      throw new IOException("Cannot locate the embedded module's classes for the child class path", e);
    }
    if (!entries.contains(own)) {
      entries.add(own);
    }
    return entries;
  }

  String name() {
    return spec.name();
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Sends SIGTERM and returns at once. */
  void terminate() {
    process.destroy();
  }

  /** Kills the child with SIGKILL and waits (at most 10 s) until it is gone. Idempotent. */
  void kill() {
    process.destroyForcibly();
    if (!waitForExit(KILL_WAIT)) {
      log.warn("{} (pid {}) still running {} s after SIGKILL", spec.name(), process.pid(),
          KILL_WAIT.toSeconds());
    }
  }

  /**
   * Sends SIGTERM and waits at most {@code timeout} for the child to exit, then kills it with
   * SIGKILL. Returns true if it exited on SIGTERM. Idempotent.
   */
  boolean stop(Duration timeout) {
    if (!process.isAlive()) {
      return true;
    }
    process.destroy();
    if (waitForExit(timeout)) {
      return true;
    }
    log.warn("{} (pid {}) did not exit within {} s of SIGTERM; killing it", spec.name(),
        process.pid(), timeout.toSeconds());
    kill();
    return false;
  }

  /** Waits at most {@code timeout} for the child to exit by itself; true if it has. */
  boolean awaitExit(Duration timeout) {
    return waitForExit(timeout);
  }

  private boolean waitForExit(Duration timeout) {
    return BoundedStop.waitForExit(process, timeout);
  }

  /** Throws {@link ExitedException}, with the tail of the child's log, if it has exited. */
  void checkAlive() throws ExitedException {
    if (!process.isAlive()) {
      throw new ExitedException(describe(40));
    }
  }

  /** Says how the child ended (or that it runs) and shows the tail of its log. */
  String describe(int logLines) {
    String state = process.isAlive() ? "is running" : "exited with code " + process.exitValue();
    return spec.name() + " (pid " + process.pid() + ") " + state + "; "
        + LogTail.of(spec.logFile(), logLines);
  }

  private static void stopAllOnExit() {
    List<ChildJvm> children = List.copyOf(RUNNING);
    children.forEach(child -> child.process.destroy());
    long deadline = Time.SYSTEM.nanoTime() + EXIT_HOOK_GRACE.toNanos();
    for (ChildJvm child : children) {
      long remaining = Math.max(1, deadline - Time.SYSTEM.nanoTime());
      try {
        if (!child.process.waitFor(remaining, TimeUnit.NANOSECONDS)) {
          child.process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        child.process.destroyForcibly();
      }
    }
  }

  /** The child exited while it was expected to run; the message has the tail of its log. */
  static final class ExitedException extends IOException {
    private static final long serialVersionUID = 1L;

    ExitedException(String message) {
      super(message);
    }
  }

  @Override
  public String toString() {
    return "ChildJvm{" + spec.name() + ", pid " + process.pid() + "}";
  }
}
