package io.playline.bench.heartbeats;

import io.playline.bench.heartbeats.baseline.EchoServerMain;
import io.playline.bench.probe.ServerProbe;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The echo baseline's server in its own JVM (same heap flags as bin/playline's default), so its
 * CPU and RSS are measured apart from the generator's. Stops when closed or when this JVM's pipe
 * to it closes. Used from the benchmark's control thread.
 */
final class EchoChild implements AutoCloseable {
  private final Process process;
  private final int port;

  private EchoChild(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  static EchoChild start(Path logDir) throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    // Netty's leak detector as in the gateways (bin/playline sets it for the bench JVM too).
    String leaks = "-Dio.netty.leakDetection.level=" + System.getProperty("io.netty.leakDetection.level", "simple");
    Process p = new ProcessBuilder(List.of(java, "-Xms256m", "-Xmx2g", "-XX:+UseParallelGC", leaks, "-cp",
        System.getProperty("java.class.path"), EchoServerMain.class.getName(), "0", "0"))
        .redirectError(logDir.resolve("bench-echo.log").toFile()).start();
    CompletableFuture<Integer> port = CompletableFuture.supplyAsync(() -> {
      try {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          if (line.startsWith("@@PORT ")) {
            return Integer.parseInt(line.substring(7).trim());
          }
        }
        return -1;
      } catch (IOException e) {
        return -1;
      }
    });
    try {
      int n = port.get(30, TimeUnit.SECONDS);
      if (n <= 0) {
        throw new IOException("echo server exited (see bench-echo.log)");
      }
      return new EchoChild(p, n);
    } catch (ExecutionException | TimeoutException e) {
      p.destroyForcibly();
      throw new IOException("echo server did not start within 30 s", e);
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    } catch (IOException e) {
      p.destroyForcibly();
      throw e;
    }
  }

  int port() {
    return port;
  }

  ServerProbe probe() {
    return new ServerProbe("echo", process.pid(), null);
  }

  @Override
  public void close() {
    try {
      process.getOutputStream().close();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (IOException e) {
      process.destroyForcibly();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
