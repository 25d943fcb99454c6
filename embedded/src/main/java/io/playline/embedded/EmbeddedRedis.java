package io.playline.embedded;

import io.playline.time.Time;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
  private static final String HOST = RedisProcess.HOST;
  private static final int START_ATTEMPTS_ON_FREE_PORT = 3;

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

  /** The server's process: its command line, start, wait for PING and stop. */
  private final RedisProcess server;
  /** Restarts the server once {@link #supervise() supervised}. */
  private final RedisSupervisor supervisor;
  private final Thread killOnExit;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CountDownLatch stopped = new CountDownLatch(1);

  /**
   * How long the JVM-exit hook waits for the owner's orderly {@link #close()} before it kills the
   * process itself. Shutdown hooks run concurrently, so killing at once would pull Redis from under
   * an owner still draining writes into it during its own shutdown.
   */
  private static final Duration EXIT_GRACE = Duration.ofSeconds(30);

  private EmbeddedRedis(RedisProcess server) {
    this.server = server;
    this.supervisor = new RedisSupervisor(server, this, closed::get);
    this.killOnExit = new Thread(this::killOnJvmExit, "embedded-redis-kill-" + server.port());
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
      supervisor.stopRestarts();
      server.terminate();
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
      } catch (RedisProcess.ExitedEarlyException e) {
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
    EmbeddedRedis redis = new EmbeddedRedis(RedisProcess.spawn(options, binary, port));
    Runtime.getRuntime().addShutdownHook(redis.killOnExit);
    try {
      redis.server.awaitPong();
    } catch (IOException | RuntimeException e) {
      redis.close();
      throw e;
    }
    log.info("Started redis on {}:{} in {} ms (binary {}, persistent={}, dir {})", HOST, port,
        TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - startNanos), binary,
        options.persistent(), workDir);
    return redis;
  }

  /**
   * From now on, a server that exits without {@link #close()} (it crashed, or was killed) is
   * started again on the same port and directory, after 1 s and then up to {@value
   * RedisSupervisor#RESTART_BACKOFF_MAX_SECONDS} s between failed attempts. Idempotent.
   */
  public void supervise() {
    supervise(Time.SYSTEM);
  }

  /** As {@link #supervise()}, the backoff passing on {@code time}. Only the first call counts. */
  public synchronized void supervise(Time time) {
    supervisor.supervise(time);
  }

  /**
   * Completes once the exit of the server now watched has been handled (a restart scheduled, or
   * none after a close): a test waits for it instead of for a restart that might come.
   */
  CompletableFuture<Void> watching() {
    return supervisor.watching();
  }

  /** How many times supervision restarted the server. */
  public int restarts() {
    return supervisor.restarts();
  }

  /** The pid of the running {@code redis-server} process. */
  public long pid() {
    return server.pid();
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
    return server.port();
  }

  /** Returns {@code "redis://127.0.0.1:PORT"}. */
  public String redisUri() {
    return "redis://" + HOST + ":" + server.port();
  }

  /** Returns the path of the {@code redis-server} executable that runs. */
  public String binary() {
    return server.binary().toString();
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
    supervisor.stopRestarts();
    long startNanos = Time.SYSTEM.nanoTime();
    if (!server.isAlive()) {
      log.info("redis on port {} had already exited with code {}", server.port(), server.exitValue());
      removeShutdownHook();
      return;
    }
    boolean graceful = server.stop();
    removeShutdownHook();
    log.info("Stopped redis on port {} in {} ms ({})", server.port(),
        TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - startNanos),
        graceful ? "SHUTDOWN" : "signal");
  }

  /**
   * Kills the process with SIGKILL ({@code kill -9}: no shutdown, no final append-only fsync) and
   * waits up to 5 s for it to be gone. For fault injection; {@link #close()} does nothing after.
   */
  synchronized void kill() {
    closed.set(true);
    supervisor.stopRestarts();
    server.kill();
    removeShutdownHook();
    log.info("Killed redis on port {} (SIGKILL)", server.port());
  }

  /** True while the process runs. */
  boolean isAlive() {
    return server.isAlive();
  }

  private void removeShutdownHook() {
    stopped.countDown();
    try {
      Runtime.getRuntime().removeShutdownHook(killOnExit);
    } catch (IllegalStateException e) {
      // The JVM is already shutting down; the hook kills the process anyway.
    }
  }

  @Override
  public String toString() {
    return "EmbeddedRedis{" + redisUri() + ", binary=" + server.binary() + "}";
  }
}
