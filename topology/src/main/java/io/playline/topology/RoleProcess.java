package io.playline.topology;

import io.playline.roles.endpoints.Endpoints;
import io.playline.time.Time;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Playline role ({@code gateway}, {@code api} or {@code job}) as a child JVM, started exactly
 * as {@code bin/playline ROLE --backends FILE --endpoints-out FILE} starts it, from the built
 * classes: the launcher's main class on {@code classpath} (under {@code ExitWithParent}, so it exits
 * when this JVM does, even on kill -9), the JDK flags of {@link JvmFlags}, the
 * player token secret in its environment, its settings as {@code --set} flags, its output in
 * {@code <dir>/NAME.log}. {@link #start} waits until it serves (its endpoints file appears);
 * {@link #kill} is kill -9, {@link #stop} SIGTERM (bounded), {@link #restart} starts it again with
 * the same settings (and ports, when they were fixed). Not thread-safe: one controlling thread.
 */
public final class RoleProcess implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RoleProcess.class);
  private static final String MAIN = "io.playline.standalone.PlaylineCli";
  /** Runs MAIN and exits when this JVM's end of the child's stdin pipe closes, kill -9 included. */
  private static final String EXIT_WITH_PARENT = "io.playline.embedded.internal.ExitWithParent";

  private final String role;
  private final String name;
  private final List<String> command;
  private final Path logFile;
  private final Path endpointsFile;
  private final Map<String, String> secrets;
  private final Duration startTimeout;
  private @Nullable Process process;
  private Endpoints.@Nullable Serves serves;

  private RoleProcess(String role, String name, List<String> command, Path logFile, Path endpointsFile, Map<String, String> secrets,
      Duration startTimeout) {
    this.role = role;
    this.name = name;
    this.command = command;
    this.logFile = logFile;
    this.endpointsFile = endpointsFile;
    this.secrets = Map.copyOf(secrets);
    this.startTimeout = startTimeout;
  }

  /**
   * Starts {@code role} as process {@code name} (also its {@code node.id}) in {@code dir}, against
   * the backends in {@code backendsFile}, and waits until it serves.
   *
   * @param settings {@code --set} values, e.g. ports ({@code 0} = any free port) or timings
   * @throws IOException when it exits or does not serve within {@code startTimeout} (with its log's tail)
   */
  public static RoleProcess start(String role, String name, Path dir, Path backendsFile, Map<String, String> settings,
      String classpath, String heap, Map<String, String> secrets, Duration startTimeout) throws IOException {
    Files.createDirectories(dir);
    Path endpoints = dir.resolve(name + ".json");
    List<String> cmd = new ArrayList<>(JvmFlags.java(heap, dir.resolve("logs-" + name)));
    cmd.addAll(List.of("-cp", classpath, EXIT_WITH_PARENT, MAIN, role, "--backends", backendsFile.toString(),
        "--endpoints-out", endpoints.toString(), "--set", "node.id=" + name));
    settings.forEach((k, v) -> cmd.addAll(List.of("--set", k + "=" + v)));
    RoleProcess p = new RoleProcess(role, name, List.copyOf(cmd), dir.resolve(name + ".log"), endpoints, secrets,
        startTimeout);
    p.launch();
    return p;
  }

  private void launch() throws IOException {
    Files.deleteIfExists(endpointsFile);
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
    pb.environment().putAll(secrets);
    Process started = pb.start();
    process = started;
    long deadline = Time.SYSTEM.nanoTime() + startTimeout.toNanos();
    while (Time.SYSTEM.nanoTime() < deadline) {
      if (Files.isRegularFile(endpointsFile)) {
        Endpoints.Serves own;
        try {
          own = Endpoints.read(endpointsFile).playline();
        } catch (IOException e) {
          started.destroyForcibly();
          throw new IOException(role + " " + name + " wrote an unreadable endpoints file: " + e.getMessage(), e);
        }
        serves = own;
        log.info("{} {} up: pid {}, {}", role, name, started.pid(), own == null ? "serves nothing" : own.byName());
        return;
      }
      if (!started.isAlive()) {
        throw new IOException(role + " " + name + " exited with " + started.exitValue() + ":\n" + tail());
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        started.destroyForcibly();
        throw new IOException("interrupted while starting " + name, e);
      }
    }
    started.destroyForcibly();
    throw new IOException(role + " " + name + " did not serve within " + startTimeout + ":\n" + tail());
  }

  private String tail() {
    try {
      List<String> lines = Files.readAllLines(logFile);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  public String role() {
    return role;
  }

  public String name() {
    return name;
  }

  public long pid() {
    Process p = process;
    return p == null ? -1 : p.pid();
  }

  public boolean isAlive() {
    Process p = process;
    return p != null && p.isAlive();
  }

  /** What it serves, from its endpoints file (nothing before it served). */
  public Endpoints.Serves serves() {
    Endpoints.Serves s = serves;
    return s == null ? new Endpoints.Serves(null, null, null, null, null, null) : s;
  }

  /** One of its addresses from its endpoints file: {@code websocket}, {@code grpc}, {@code api}, {@code apiHttp}, {@code admin}. */
  public String address(String kind) {
    String a = serves().byName().get(kind);
    if (a == null) {
      throw new IllegalStateException(name + " serves no " + kind);
    }
    return a;
  }

  /** The port of {@link #address(String)}. */
  public int port(String kind) {
    String a = address(kind);
    String hostPort = a.contains("://") ? a.substring(a.indexOf("://") + 3) : a;
    int slash = hostPort.indexOf('/');
    if (slash >= 0) {
      hostPort = hostPort.substring(0, slash);
    }
    return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
  }

  /** kill -9: no drain, no flush, nothing released. */
  public void kill() throws InterruptedException {
    Process p = process;
    if (p != null) {
      p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      log.info("{} {} killed (kill -9)", role, name);
    }
  }

  /** SIGTERM, as an orchestrator stops a process: waits up to {@code timeout}, then kills. */
  public void stop(Duration timeout) throws InterruptedException {
    Process p = process;
    if (p == null || !p.isAlive()) {
      return;
    }
    p.destroy();
    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      log.warn("{} {} did not stop within {}; killing it", role, name, timeout);
      p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }

  /** Starts it again with the same command, and waits until it serves. */
  public void restart() throws IOException {
    if (isAlive()) {
      throw new IllegalStateException(name + " is still running");
    }
    launch();
  }

  @Override
  public void close() {
    try {
      stop(Duration.ofSeconds(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      Process p = process;
      if (p != null) {
        p.destroyForcibly();
      }
    }
  }

  @Override
  public String toString() {
    return role + " " + name + " (pid " + pid() + ")";
  }
}
