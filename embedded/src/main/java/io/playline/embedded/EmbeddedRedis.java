package io.playline.embedded;

import io.playline.time.Time;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real {@code redis-server} child process bound to 127.0.0.1, stopped by {@link #close()} or
 * when this JVM exits. It keeps its pid in {@value LeftoverRedis#PID_FILE} in its directory, and a
 * start first stops a {@code redis-server} a killed run left there ({@link LeftoverRedis}). Once
 * {@link #supervise() supervised}, a server that exits without {@link #close()} is started again on
 * the same port and directory (its append-only file brings the data back), with a backoff between
 * attempts, timed on the {@link Time} it was given; each exit and restart is logged. Where the OS allows, the server also gets SIGTERM when
 * this JVM dies, even by {@code kill -9} ({@link ParentDeathSignal}); the pid-file sweep does not
 * rely on it.
 *
 * <p>Runs the system {@code redis-server} if one is on {@code PATH} (Debian's 7.0), else the Redis
 * 6.2 binary bundled in the embedded-redis jar, extracted into the work dir. Thread-safe.
 */
public final class EmbeddedRedis implements EmbeddedServer {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedRedis.class);
  private static final String HOST = "127.0.0.1";
  private static final Duration PING_TIMEOUT = Duration.ofMillis(500);
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(10);
  /** How long a restarted server may replay its append-only file (answering LOADING) before it counts as stuck. */
  private static final Duration LOADING_TIMEOUT = Duration.ofMinutes(10);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);
  private static final int START_ATTEMPTS_ON_FREE_PORT = 3;
  static final String LOG_FILE = "redis.log";
  static final String CONSOLE_FILE = "redis-console.log";

  /**
   * How to start Redis.
   *
   * @param workDir holds the log, the extracted binary if any, and the append-only file
   * @param port TCP port on 127.0.0.1; 0 picks a free one
   * @param persistent if true, writes an append-only file in {@code workDir} so data survives a
   *     restart on the same {@code workDir}; if false, keeps nothing on disk
   * @param extraArgs further {@code redis-server} arguments, appended to Playline's (e.g. the
   *     {@code --cluster-*} settings of a cluster node); later arguments win
   */
  public record Options(Path workDir, int port, boolean persistent, List<String> extraArgs) {
    public Options {
      Objects.requireNonNull(workDir, "workDir");
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("port: " + port + " (expected: 0..65535)");
      }
      extraArgs = List.copyOf(extraArgs);
    }

    /** Options without extra arguments. */
    public Options(Path workDir, int port, boolean persistent) {
      this(workDir, port, persistent, List.of());
    }
  }

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

  private static final long RESTART_BACKOFF_FIRST_MS = 1_000;
  private static final long RESTART_BACKOFF_MAX_SECONDS = 30;

  private volatile Process process;
  private final Options options;
  private final Path binary;
  private final int port;
  private final Thread killOnExit;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicInteger restarts = new AtomicInteger();
  private volatile boolean supervised;
  private volatile Time time = Time.SYSTEM;
  /** Runs the restarts of a supervised server; made by the first one. Guarded by this. */
  private @Nullable ScheduledExecutorService restarter;
  /** The restart waiting for its backoff, if any. Guarded by this. */
  private @Nullable ScheduledFuture<?> pendingRestart;
  /** What the latest watched process's exit leads to: done once it has been decided. */
  private volatile CompletableFuture<Void> watching = CompletableFuture.completedFuture(null);

  /**
   * How long the JVM-exit hook waits for the owner's orderly {@link #close()} before it kills the
   * process itself. Shutdown hooks run concurrently, so killing at once would pull Redis from under
   * an owner still draining writes into it during its own shutdown.
   */
  private static final Duration EXIT_GRACE = Duration.ofSeconds(30);

  private EmbeddedRedis(Process process, Options options, Path binary, int port) {
    this.process = process;
    this.options = options;
    this.binary = binary;
    this.port = port;
    this.killOnExit = new Thread(this::killOnJvmExit, "embedded-redis-kill-" + port);
  }

  private void killOnJvmExit() {
    try {
      stopped.await(EXIT_GRACE.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    // The JVM is going: supervision must not start a server nobody would stop (a restart in
    // progress finishes first, under the same lock, and its server is stopped here).
    synchronized (this) {
      closed.set(true);
      stopRestarts();
      if (process.isAlive()) {
        process.destroy();
      }
    }
  }

  /**
   * Starts {@code redis-server} and returns once it answers {@code PING}.
   *
   * @throws IOException if it cannot be started or does not answer within 10 s; the message
   *     includes the tail of its log
   */
  public static EmbeddedRedis start(Options options) throws IOException {
    Path workDir = options.workDir().toAbsolutePath();
    Files.createDirectories(workDir);
    return start(options, RedisBinary.locate(workDir));
  }

  /** Starts the Redis 6.2 binary bundled in the embedded-redis jar, even if one is on PATH. */
  static EmbeddedRedis startBundled(Options options) throws IOException {
    Path workDir = options.workDir().toAbsolutePath();
    Files.createDirectories(workDir);
    return start(options, RedisBinary.bundled(workDir));
  }

  /** Starts {@code binary} (a {@code redis-server} found by {@link RedisBinary}). */
  static EmbeddedRedis start(Options options, Path binary) throws IOException {
    int attempts = options.port() == 0 ? START_ATTEMPTS_ON_FREE_PORT : 1;
    for (int attempt = 1; ; attempt++) {
      int port = options.port() == 0 ? FreePorts.pick() : options.port();
      try {
        return launch(options, binary, port);
      } catch (ExitedEarlyException e) {
        // Another process may have taken the port we picked; pick again.
        if (attempt >= attempts) {
          throw e;
        }
        log.warn("redis-server exited on start on port {}, retrying on another port: {}",
            port, e.getMessage());
      }
    }
  }

  private static EmbeddedRedis launch(Options options, Path binary, int port) throws IOException {
    long startNanos = Time.SYSTEM.nanoTime();
    Path workDir = options.workDir().toAbsolutePath();
    LeftoverRedis.stopIn(workDir);
    EmbeddedRedis redis = new EmbeddedRedis(spawn(options, binary, port), options, binary, port);
    Runtime.getRuntime().addShutdownHook(redis.killOnExit);
    try {
      redis.awaitPong();
    } catch (IOException | RuntimeException e) {
      redis.close();
      throw e;
    }
    log.info("Started redis on {}:{} in {} ms (binary {}, persistent={}, dir {})", HOST, port,
        TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - startNanos), binary,
        options.persistent(), workDir);
    return redis;
  }

  private static Process spawn(Options options, Path binary, int port) throws IOException {
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
   * From now on, a server that exits without {@link #close()} (it crashed, or was killed) is
   * started again on the same port and directory, after 1 s and then up to {@value
   * #RESTART_BACKOFF_MAX_SECONDS} s between failed attempts. Idempotent.
   */
  public void supervise() {
    supervise(Time.SYSTEM);
  }

  /** As {@link #supervise()}, the backoff passing on {@code time}. Only the first call counts. */
  public synchronized void supervise(Time time) {
    if (!supervised) {
      this.time = Objects.requireNonNull(time, "time");
      supervised = true;
      watch(process);
    }
  }

  private void watch(Process watched) {
    watching = watched.onExit().thenRun(() -> {
      if (closed.get() || !supervised) {
        return;
      }
      log.error("redis on port {} exited unexpectedly with code {}; restarting it on the same port and dir {}. "
          + "{}", port, watched.exitValue(), options.workDir(), tails());
      scheduleRestart(1, RESTART_BACKOFF_FIRST_MS);
    });
  }

  /** Restart attempt {@code attempt} runs once {@code backoffMs} has passed, unless closed first. */
  private synchronized void scheduleRestart(int attempt, long backoffMs) {
    if (closed.get()) {
      return;
    }
    if (restarter == null) {
      restarter = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "embedded-redis-restart-" + port);
        t.setDaemon(true);
        return t;
      });
    }
    pendingRestart = time.schedule(restarter, () -> restart(attempt, backoffMs), backoffMs, TimeUnit.MILLISECONDS);
  }

  private void restart(int attempt, long backoffMs) {
    long nextBackoffMs = Math.min(backoffMs * 2, TimeUnit.SECONDS.toMillis(RESTART_BACKOFF_MAX_SECONDS));
    synchronized (this) {
      pendingRestart = null;
      if (closed.get()) {
        return;
      }
      try {
        LeftoverRedis.stopIn(options.workDir().toAbsolutePath());
        process = spawn(options, binary, port);
        awaitPong();
        int n = restarts.incrementAndGet();
        log.warn("Restarted redis on port {} (restart {}, attempt {})", port, n, attempt);
        watch(process);
        return;
      } catch (IOException | RuntimeException e) {
        log.error("Restarting redis on port {} failed (attempt {}); retrying in {} ms: {}", port, attempt,
            nextBackoffMs, e.toString());
        process.destroyForcibly();
      }
    }
    scheduleRestart(attempt + 1, nextBackoffMs);
  }

  /**
   * Completes once the exit of the server now watched has been handled (a restart scheduled, or
   * none after a close): a test waits for it instead of for a restart that might come.
   */
  CompletableFuture<Void> watching() {
    return watching;
  }

  /** No restart runs from now on; one in progress has finished (the caller holds the lock). */
  private void stopRestarts() {
    if (pendingRestart != null) {
      pendingRestart.cancel(false);
      pendingRestart = null;
    }
    if (restarter != null) {
      restarter.shutdownNow();
    }
  }

  /** How many times supervision restarted the server. */
  public int restarts() {
    return restarts.get();
  }

  /** The pid of the running {@code redis-server} process. */
  public long pid() {
    return process.pid();
  }

  private String tails() {
    Path workDir = options.workDir().toAbsolutePath();
    return tails(workDir.resolve(LOG_FILE), workDir.resolve(CONSOLE_FILE));
  }

  private void awaitPong() throws IOException {
    Process process = this.process;
    RedisReadiness.awaitPong(port, READY_TIMEOUT, LOADING_TIMEOUT, () -> {
      if (!process.isAlive()) {
        throw new ExitedEarlyException("redis-server (" + binary + ") exited with code "
            + process.exitValue() + " before answering PING on port " + port + "; " + tails());
      }
    }, () -> "redis-server (" + binary + ") on port " + port, this::tails);
  }

  private static String tails(Path logFile, Path consoleFile) {
    return "log tail: " + LogTail.of(logFile, 20) + "\nconsole tail: " + LogTail.of(consoleFile, 20);
  }

  @Override
  public String name() {
    return "redis";
  }

  /** Returns the address Redis listens on: {@code "127.0.0.1"}. */
  public String host() {
    return HOST;
  }

  /** Returns the TCP port Redis listens on. */
  public int port() {
    return port;
  }

  /** Returns {@code "redis://127.0.0.1:PORT"}. */
  public String redisUri() {
    return "redis://" + HOST + ":" + port;
  }

  /** Returns the path of the {@code redis-server} executable that runs. */
  public String binary() {
    return binary.toString();
  }

  /**
   * Stops Redis with {@code SHUTDOWN NOSAVE} (the append-only file, if any, is still flushed),
   * then by signal if it has not exited within 5 s; waits for a supervised restart in progress
   * first. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    stopRestarts();
    long startNanos = Time.SYSTEM.nanoTime();
    if (!process.isAlive()) {
      log.info("redis on port {} had already exited with code {}", port, process.exitValue());
      removeShutdownHook();
      return;
    }
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
    removeShutdownHook();
    log.info("Stopped redis on port {} in {} ms ({})", port,
        TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - startNanos),
        graceful ? "SHUTDOWN" : "signal");
  }

  /**
   * Kills the process with SIGKILL ({@code kill -9}: no shutdown, no final append-only fsync) and
   * waits up to 5 s for it to be gone. For fault injection; {@link #close()} does nothing after.
   */
  synchronized void kill() {
    closed.set(true);
    stopRestarts();
    process.destroyForcibly();
    waitForExit(STOP_TIMEOUT);
    removeShutdownHook();
    log.info("Killed redis on port {} (SIGKILL)", port);
  }

  /** True while the process runs. */
  boolean isAlive() {
    return process.isAlive();
  }

  private void removeShutdownHook() {
    stopped.countDown();
    try {
      Runtime.getRuntime().removeShutdownHook(killOnExit);
    } catch (IllegalStateException e) {
      // The JVM is already shutting down; the hook kills the process anyway.
    }
  }

  private boolean waitForExit(Duration timeout) {
    return BoundedStop.waitForExit(process, timeout);
  }

  @Override
  public String toString() {
    return "EmbeddedRedis{" + redisUri() + ", binary=" + binary + "}";
  }

  /** The process exited before it answered PING, e.g. because its port was taken. */
  private static final class ExitedEarlyException extends IOException {
    private static final long serialVersionUID = 1L;

    ExitedEarlyException(String message) {
      super(message);
    }
  }
}
