package io.playline.client;

import static org.awaitility.Awaitility.await;

import io.playline.gateway.TestGateway;
import io.playline.testing.RedisNamespace;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A gateway node in a JVM of its own (the {@link GatewayFixture}'s settings, on the test's share of
 * the real Redis, on free ports), so a test can freeze it ({@code kill -STOP}) and kill it with
 * {@code kill -9}: no orderly close, no drain, the kernel drops its connections. The child exits
 * by itself when this JVM goes (its stdin closes). Not thread-safe: one controlling thread.
 */
final class GatewayProcess implements AutoCloseable {
  private final Process process;
  private final int wsPort;
  private final int grpcPort;

  private GatewayProcess(Process process, int wsPort, int grpcPort) {
    this.process = process;
    this.wsPort = wsPort;
    this.grpcPort = grpcPort;
  }

  /** Starts a node writing to {@code ns}, its output in {@code dir}, and waits until it serves. */
  static GatewayProcess start(RedisNamespace ns, Path dir) throws IOException {
    Path ports = dir.resolve("gateway.ports");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(List.of(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
        GatewayProcess.class.getName(), ns.redisUri(), ns.keyPrefix(), ports.toString()))
        .redirectErrorStream(true).redirectOutput(dir.resolve("gateway.log").toFile()).start();
    await("gateway process serving").atMost(Duration.ofSeconds(60)).until(() -> {
      if (!p.isAlive()) {
        throw new IllegalStateException("gateway process exited with " + p.exitValue() + "; see " + dir);
      }
      return Files.isRegularFile(ports);
    });
    String[] both = Files.readString(ports, StandardCharsets.US_ASCII).trim().split(" ");
    return new GatewayProcess(p, Integer.parseInt(both[0]), Integer.parseInt(both[1]));
  }

  /** The port of {@code wire}. */
  int port(Wire wire) {
    return wire.grpc() ? grpcPort : wsPort;
  }

  int wsPort() {
    return wsPort;
  }

  int grpcPort() {
    return grpcPort;
  }

  /**
   * {@code kill -STOP}, and waits until Linux reports the process stopped ({@code T} in {@code
   * /proc/PID/stat}): from then on the node reads and answers nothing, its connections stay open.
   */
  void freeze() throws IOException, InterruptedException {
    int exit = new ProcessBuilder("kill", "-STOP", Long.toString(process.pid())).start().waitFor();
    if (exit != 0) {
      throw new IOException("kill -STOP " + process.pid() + " exited with " + exit);
    }
    Path stat = Path.of("/proc", Long.toString(process.pid()), "stat");
    await("gateway process stopped").atMost(Duration.ofSeconds(10))
        .until(() -> Files.readString(stat, StandardCharsets.US_ASCII).replaceFirst("^.*\\) ", "").startsWith("T"));
  }

  /** {@code kill -9}, and waits until the process is gone (its ports are free again). */
  void kill() {
    try {
      process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    kill();
  }

  /** The child: {@code REDIS_URI KEY_PREFIX PORTS_FILE}; serves until its stdin closes. */
  public static void main(String[] args) throws IOException {
    TestGateway node = new TestGateway(args[0], false, args[1], GatewayFixture.settings(0, 0, Map.of()), false);
    Path ports = Path.of(args[2]);
    Path tmp = Files.writeString(ports.resolveSibling(ports.getFileName() + ".tmp"),
        node.server.wsAddress().getPort() + " " + node.server.grpcAddress().getPort(), StandardCharsets.US_ASCII);
    Files.move(tmp, ports, StandardCopyOption.ATOMIC_MOVE);
    while (System.in.read() >= 0) {
      // Nothing is sent: a read returns only when the parent JVM is gone (end of stream).
    }
    System.exit(0);
  }
}
