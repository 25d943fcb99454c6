package io.playline.bench.load;

import io.playline.time.Time;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A fleet of generator child JVMs ({@link ChildMain}) on this JVM's class path, each holding a
 * slice of at most {@code perChild} connections, so the fleet is not bound by one process's
 * descriptor limit. Snapshots are the children's sums; histograms are merged, not averaged.
 *
 * <p>Driven from one control thread; each child has a reader thread feeding its answers.
 */
public final class ChildFleet implements Fleet {
  private static final long ANSWER_WAIT_MS = 10_000;

  private final int connections;
  private final List<Child> children = new ArrayList<>();

  private record Child(Process process, Writer in, BlockingQueue<String> answers, int connections) {}

  private ChildFleet(int connections) {
    this.connections = connections;
  }

  /**
   * Starts {@code ceil(spec.connections() / perChild)} children with {@code jvmArgs}, each logging
   * its stderr to {@code logDir/bench-child-<i>.log}; waits (bounded) until each says READY.
   */
  public static ChildFleet start(LoadSpec spec, int perChild, List<String> jvmArgs, Path logDir) throws IOException {
    ChildFleet fleet = new ChildFleet(spec.connections());
    int count = (spec.connections() + perChild - 1) / perChild;
    String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin",
        "java").toString());
    try {
      for (int i = 0; i < count; i++) {
        int first = spec.firstIndex() + i * perChild;
        int n = Math.min(perChild, spec.firstIndex() + spec.connections() - first);
        LoadSpec slice = spec.slice(first, n).withConnectRate(spec.connectRate() / count);
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(ChildMain.class.getName());
        cmd.addAll(slice.toArgs());
        ProcessBuilder pb = new ProcessBuilder(cmd)
            .redirectError(logDir.resolve("bench-child-" + i + ".log").toFile());
        pb.environment().put(ChildMain.SECRET_ENV, spec.secret());
        Process p = pb.start();
        BlockingQueue<String> answers = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> pump(p, answers), "bench-child-" + i + "-reader");
        reader.setDaemon(true);
        reader.start();
        fleet.children.add(new Child(p, new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8), answers, n));
      }
      for (Child c : fleet.children) {
        fleet.await(c, "READY");
      }
    } catch (IOException | RuntimeException e) {
      fleet.close();
      throw e;
    }
    return fleet;
  }

  private static void pump(Process p, BlockingQueue<String> answers) {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        if (line.startsWith(ChildMain.PREFIX)) {
          answers.add(line.substring(ChildMain.PREFIX.length()));
        }
      }
    } catch (IOException e) {
      // The child is gone; waits for its answers time out.
    }
  }

  private String await(Child c, String kind) throws IOException {
    try {
      long deadline = Time.SYSTEM.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ANSWER_WAIT_MS);
      while (Time.SYSTEM.nanoTime() < deadline) {
        String line = c.answers().poll(100, TimeUnit.MILLISECONDS);
        if (line != null && line.startsWith(kind)) {
          return line.substring(kind.length()).trim();
        }
        if (line == null && !c.process().isAlive()) {
          break;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    throw new IOException("generator child " + c.process().pid() + " did not answer " + kind
        + (c.process().isAlive() ? " in time" : " (exited " + c.process().exitValue() + "; see bench-child-*.log)"));
  }

  private static void tell(Child c, String command) throws IOException {
    c.in().write(command + "\n");
    c.in().flush();
  }

  @Override
  public int connections() {
    return connections;
  }

  @Override
  public void setRate(double totalPerSecond, Duration ramp) {
    for (Child c : children) {
      try {
        tell(c, "RATE " + totalPerSecond * c.connections() / Math.max(1, connections) + " " + ramp.toMillis());
      } catch (IOException e) {
        throw new IllegalStateException("generator child " + c.process().pid() + " is gone", e);
      }
    }
  }

  @Override
  public void limitConnections(int total) {
    for (Child c : children) {
      try {
        tell(c, "LIMIT " + (int) Math.ceil((double) total * c.connections() / Math.max(1, connections)));
      } catch (IOException e) {
        throw new IllegalStateException("generator child " + c.process().pid() + " is gone", e);
      }
    }
  }

  @Override
  public LoadSnapshot snapshot() {
    LoadSnapshot sum = LoadSnapshot.empty();
    try {
      for (Child c : children) {
        tell(c, "SNAP");
      }
      for (Child c : children) {
        sum = sum.plus(LoadSnapshot.decode(await(c, "SNAP")));
      }
    } catch (IOException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    return sum;
  }

  @Override
  public List<Long> pids() {
    return children.stream().map(c -> c.process().pid()).toList();
  }

  @Override
  public void close() {
    for (Child c : children) {
      try {
        tell(c, "STOP");
        c.in().close();
      } catch (IOException e) {
        // Already gone.
      }
    }
    long deadline = Time.SYSTEM.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    for (Child c : children) {
      try {
        long left = Math.max(1, deadline - Time.SYSTEM.nanoTime());
        if (!c.process().waitFor(left, TimeUnit.NANOSECONDS)) {
          c.process().destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        c.process().destroyForcibly();
      }
    }
  }
}
