package io.playline.bench.heartbeats;

import io.playline.bench.probe.LoadTarget;
import io.playline.time.Time;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Extra gateway-only processes for scenarios beyond one process's descriptor limit: each is
 * started with {@code command} (e.g. {@code java ... PlaylineCli gateway}) plus the endpoints file
 * that names the shared Redis, Kafka and HBase ({@code --backends}), the token secret in its
 * environment, any free ports, and an endpoints file of its own, which it writes once it serves. {@link #close()} stops them (SIGTERM, then a kill
 * after 60 s). Used from the benchmark's control thread.
 */
final class GatewayProcesses implements AutoCloseable {
  private static final long START_TIMEOUT_MS = 180_000;

  private final List<Process> processes = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final List<LoadTarget> endpoints = new ArrayList<>();
  // A bench killed mid-run must not leave gateways behind (they do not watch their parent).
  private final Thread reaper = new Thread(() -> processes.forEach(Process::destroy), "bench-gateway-reaper");

  private GatewayProcesses() {
    Runtime.getRuntime().addShutdownHook(reaper);
  }

  /** Starts {@code count} gateways one after another (each start is CPU-heavy) and waits for each. */
  static GatewayProcesses start(List<String> command, Path backends, String secret, int count, Path logDir)
      throws IOException {
    return start(command, backends, secret, count, logDir, "bench-gateway-", List.of());
  }

  /**
   * As {@link #start(List, Path, String, int, Path)}, the processes named {@code name + i}, each
   * with {@code settings} ({@code key=value}) on top.
   */
  static GatewayProcesses start(List<String> command, Path backends, String secret, int count, Path logDir,
      String name, List<String> settings) throws IOException {
    GatewayProcesses g = new GatewayProcesses();
    try {
      for (int i = 0; i < count; i++) {
        Path file = logDir.resolve(name + ProcessHandle.current().pid() + "-" + i + ".json");
        Files.deleteIfExists(file);
        List<String> cmd = new ArrayList<>(command);
        cmd.addAll(List.of("--backends", backends.toString(), "--endpoints-out", file.toString(),
            "--set", "ws.port=0", "--set", "grpc.port=0", "--set", "api.port=0", "--set", "admin.port=0",
            "--set", "node.id=" + name + i));
        for (String setting : settings) {
          cmd.addAll(List.of("--set", setting));
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
            .redirectOutput(logDir.resolve(name + i + ".log").toFile());
        pb.environment().put("PLAYLINE_AUTH_SECRET", secret);
        Process p = pb.start();
        g.processes.add(p);
        g.endpoints.add(await(p, file, i, name));
        System.out.printf("  " + name + "%d up: pid %d, %s%n", i, p.pid(), g.endpoints.get(i).websocket());
      }
    } catch (IOException | RuntimeException e) {
      g.close();
      throw e;
    }
    return g;
  }

  private static LoadTarget await(Process p, Path file, int i, String name) throws IOException {
    long deadline = Time.SYSTEM.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
    while (Time.SYSTEM.nanoTime() < deadline) {
      if (Files.isRegularFile(file)) {
        return LoadTarget.read(file);
      }
      if (!p.isAlive()) {
        throw new IOException(name + i + " exited with " + p.exitValue() + " (see " + name + i + ".log)");
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while starting gateway " + i, e);
      }
    }
    throw new IOException("gateway " + i + " did not write " + file + " within " + START_TIMEOUT_MS / 1000 + " s");
  }

  List<LoadTarget> endpoints() {
    return endpoints;
  }

  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(reaper);
    } catch (IllegalStateException e) {
      // Already shutting down: the hook runs anyway.
    }
    for (Process p : processes) {
      p.destroy();
    }
    for (Process p : processes) {
      try {
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      }
    }
  }
}
