package io.playline.embedded;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code redis-server} child process of an {@link EmbeddedRedis}: its binary, port and
 * directory, which stay fixed, the command line it runs with, and the process now running it, which
 * a supervised restart replaces ({@link #respawn()}). Starting, waiting for PING and stopping block
 * the calling thread; once started, the owning {@link EmbeddedRedis} restarts and stops it under
 * its own lock. The process is read from any thread ({@link #pid()}, {@link #isAlive()}).
 */
final class RedisProcess {

  // Logs as EmbeddedRedis: these are its server's start, exit and stop.
  private static final Logger log = LoggerFactory.getLogger(EmbeddedRedis.class);
  static final String HOST = "127.0.0.1";
  private static final Duration PING_TIMEOUT = Duration.ofMillis(500);
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(10);
  /** How long a restarted server may replay its append-only file (answering LOADING) before it counts as stuck. */
  private static final Duration LOADING_TIMEOUT = Duration.ofMinutes(10);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);
  static final String LOG_FILE = "redis.log";
  static final String CONSOLE_FILE = "redis-console.log";

  /**
   * The append-only file is rewritten once it doubled and reached this size. Redis's 64 MB default
   * suits a large dataset; the embedded server's is small (a few MB) and written fast, so under
   * load it forked a rewrite every 3–10 s (at a fixed 5 000 heartbeats/s every ~35 s of writing), and each
   * rewrite put a 28–50 ms tail on the acks of the heartbeats around it (docs/benchmarks/heartbeats.md). At
   * 512 MB: every ~25 s at peak, every few minutes at 5 000/s; the file stays under ~0.5 GB plus
   * the data, and a restart may replay that much (answering LOADING meanwhile, which {@link
   * #awaitPong} waits out). {@code extraArgs} may set another.
   */
  static final String AOF_REWRITE_MIN_SIZE = "512mb";

  private final EmbeddedRedis.Options options;
  private final Path binary;
  private final int port;
  private volatile Process process;

  private RedisProcess(EmbeddedRedis.Options options, Path binary, int port, Process process) {
    this.options = options;
    this.binary = binary;
    this.port = port;
    this.process = process;
  }

  /**
   * Stops a {@code redis-server} a killed run left in the work dir ({@link LeftoverRedis}), then
   * starts {@code binary} on {@code port}; does not wait for it to answer.
   */
  static RedisProcess spawn(EmbeddedRedis.Options options, Path binary, int port) throws IOException {
    LeftoverRedis.stopIn(options.workDir().toAbsolutePath());
    return new RedisProcess(options, binary, port, start(options, binary, port));
  }

  /**
   * As {@link #spawn}, on the same binary, port and directory: the new process replaces the old
   * one, which has exited.
   */
  void respawn() throws IOException {
    LeftoverRedis.stopIn(options.workDir().toAbsolutePath());
    process = start(options, binary, port);
  }

  private static Process start(EmbeddedRedis.Options options, Path binary, int port) throws IOException {
    Path workDir = options.workDir().toAbsolutePath();
    List<String> command = new ArrayList<>(List.of(binary.toString(),
        "--bind", HOST,
        "--port", Integer.toString(port),
        "--daemonize", "no",
        "--protected-mode", "yes",
        "--save", "",
        "--appendonly", options.persistent() ? "yes" : "no",
        "--auto-aof-rewrite-min-size", AOF_REWRITE_MIN_SIZE,
        "--dir", workDir.toString(),
        "--pidfile", workDir.resolve(LeftoverRedis.PID_FILE).toString(),
        "--logfile", workDir.resolve(LOG_FILE).toString()));
    command.addAll(options.extraArgs());
    return ParentDeathSignal.start(new ProcessBuilder(command)
        .directory(workDir.toFile())
        .redirectErrorStream(true)
        .redirectOutput(workDir.resolve(CONSOLE_FILE).toFile()));
  }

  /**
   * Returns once the server answers {@code PING}.
   *
   * @throws ExitedEarlyException if the process exits first
   * @throws IOException if it does not answer within 10 s (or, while it answers LOADING, 10 min);
   *     the message includes the tail of its log
   */
  void awaitPong() throws IOException {
    Process process = this.process;
    RedisReadiness.awaitPong(port, READY_TIMEOUT, LOADING_TIMEOUT, () -> {
      if (!process.isAlive()) {
        throw new ExitedEarlyException("redis-server (" + binary + ") exited with code "
            + process.exitValue() + " before answering PING on port " + port + "; " + tails());
      }
    }, () -> "redis-server (" + binary + ") on port " + port, this::tails);
  }

  /**
   * Stops the running server with {@code SHUTDOWN NOSAVE}, then by SIGTERM if it has not exited
   * within 5 s, then by SIGKILL; true if {@code SHUTDOWN} stopped it.
   */
  boolean stop() {
    try {
      RespClient.call(HOST, port, PING_TIMEOUT, "SHUTDOWN", "NOSAVE");
    } catch (IOException e) {
      log.debug("SHUTDOWN NOSAVE to redis on port {} failed, will signal it: {}", port, e.toString());
    }
    boolean graceful = waitForExit(STOP_TIMEOUT);
    if (!graceful) {
      log.warn("redis on port {} did not exit within {} s; sending SIGTERM", port,
          STOP_TIMEOUT.toSeconds());
      process.destroy();
      if (!waitForExit(Duration.ofSeconds(2))) {
        process.destroyForcibly();
        waitForExit(Duration.ofSeconds(2));
      }
    }
    return graceful;
  }

  /** Sends SIGTERM if the process runs; does not wait. */
  void terminate() {
    if (process.isAlive()) {
      process.destroy();
    }
  }

  /** Sends SIGKILL; does not wait. */
  void destroyForcibly() {
    process.destroyForcibly();
  }

  /** Sends SIGKILL and waits up to 5 s for the process to be gone. */
  void kill() {
    process.destroyForcibly();
    waitForExit(STOP_TIMEOUT);
  }

  private boolean waitForExit(Duration timeout) {
    return BoundedStop.waitForExit(process, timeout);
  }

  /** Completes with the running process once it exits. */
  CompletableFuture<Process> onExit() {
    return process.onExit();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  int exitValue() {
    return process.exitValue();
  }

  long pid() {
    return process.pid();
  }

  int port() {
    return port;
  }

  Path binary() {
    return binary;
  }

  /** The work dir as its options name it. */
  Path workDir() {
    return options.workDir();
  }

  /** The last lines of the server's log and of its console output. */
  String tails() {
    Path workDir = options.workDir().toAbsolutePath();
    return tails(workDir.resolve(LOG_FILE), workDir.resolve(CONSOLE_FILE));
  }

  private static String tails(Path logFile, Path consoleFile) {
    return "log tail: " + LogTail.of(logFile, 20) + "\nconsole tail: " + LogTail.of(consoleFile, 20);
  }

  /** The process exited before it answered PING, e.g. because its port was taken. */
  static final class ExitedEarlyException extends IOException {
    private static final long serialVersionUID = 1L;

    ExitedEarlyException(String message) {
      super(message);
    }
  }
}
