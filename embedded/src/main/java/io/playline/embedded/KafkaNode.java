package io.playline.embedded;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * One node of a {@link KafkaClusterProcesses}: its fixed id, port and directories, and the process
 * currently running it, if any.
 *
 * <p>Thread-safe for reads; launching, stopping and killing one node are confined to one caller
 * at a time.
 */
final class KafkaNode {

  private final int id;
  private final int port;
  private final Path logDir;
  private final ChildJvm.Spec spec;
  private volatile @Nullable ChildJvm process;
  /** True between {@link #launch()} and a deliberate stop or kill: an exit then is a failure. */
  private volatile boolean expectedRunning;

  KafkaNode(int id, int port, Path logDir, ChildJvm.Spec spec) {
    this.id = id;
    this.port = port;
    this.logDir = logDir;
    this.spec = spec;
  }

  int id() {
    return id;
  }

  Path logDir() {
    return logDir;
  }

  String address() {
    return KafkaServerProperties.HOST + ":" + port;
  }

  boolean isRunning() {
    ChildJvm current = process;
    return current != null && current.isAlive();
  }

  /** Starts this node's process; the caller waits for it to join the cluster. */
  void launch() throws IOException {
    if (isRunning()) {
      throw new IllegalStateException("Kafka node " + id + " is already running");
    }
    process = ChildJvm.start(spec);
    expectedRunning = true;
  }

  /** Throws, with the node's log tail, if the node should run but its process has exited. */
  void checkRunningIfExpected() throws ChildJvm.ExitedException {
    ChildJvm current = process;
    if (expectedRunning && current != null) {
      current.checkAlive();
    }
  }

  /** Sends SIGTERM without waiting. */
  void terminate() {
    expectedRunning = false;
    ChildJvm current = process;
    if (current != null) {
      current.terminate();
    }
  }

  /** SIGTERM, then SIGKILL after {@code timeout}; true if it exited on SIGTERM or was not running. */
  boolean stop(Duration timeout) {
    expectedRunning = false;
    ChildJvm current = process;
    return current == null || current.stop(timeout);
  }

  void kill() {
    expectedRunning = false;
    ChildJvm current = process;
    if (current != null) {
      current.kill();
    }
  }

  String describe() {
    ChildJvm current = process;
    return current == null ? "Kafka node " + id + " never started" : "Kafka " + current.describe(30);
  }
}
