package io.playline.embedded;

import io.playline.time.Time;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The supervision of an {@link EmbeddedRedis}: once {@link #supervise started}, a server that exits
 * while its owner is not closed is started again on the same port and directory, after a backoff
 * timed on the {@link Time} it was given. Owns the restart schedule and the count of restarts.
 *
 * <p>An exit is handled on the thread that completes the process's {@code onExit()}; restarts run
 * on a daemon thread of their own ({@code embedded-redis-restart-PORT}), made by the first one. A
 * restart, and every change of the schedule, holds the owner's lock: the methods the owner calls
 * expect it held, the others take it. The owner's close holds it too, so it waits for a restart in
 * progress and no restart starts after it.
 */
final class RedisSupervisor {

  // Logs as EmbeddedRedis: these are its server's exits and restarts.
  private static final Logger log = LoggerFactory.getLogger(EmbeddedRedis.class);
  private static final long RESTART_BACKOFF_FIRST_MS = 1_000;
  static final long RESTART_BACKOFF_MAX_SECONDS = 30;

  private final RedisProcess server;
  /** The owning {@link EmbeddedRedis}, whose monitor guards the server and the schedule. */
  private final Object lock;
  /** True once the owner is closed or killed, or the JVM exits: no restart from then on. */
  private final BooleanSupplier closed;
  private final AtomicInteger restarts = new AtomicInteger();
  private volatile boolean supervised;
  private volatile Time time = Time.SYSTEM;
  /** Runs the restarts of a supervised server; made by the first one. Guarded by lock. */
  private @Nullable ScheduledExecutorService restarter;
  /** The restart waiting for its backoff, if any. Guarded by lock. */
  private @Nullable ScheduledFuture<?> pendingRestart;
  /** What the latest watched process's exit leads to: done once it has been decided. */
  private volatile CompletableFuture<Void> watching = CompletableFuture.completedFuture(null);

  RedisSupervisor(RedisProcess server, Object lock, BooleanSupplier closed) {
    this.server = server;
    this.lock = lock;
    this.closed = closed;
  }

  /** Starts supervising, the backoff passing on {@code time}; only the first call counts. The caller holds the lock. */
  void supervise(Time time) {
    if (!supervised) {
      this.time = Objects.requireNonNull(time, "time");
      supervised = true;
      watch();
    }
  }

  /** Watches the process now running the server. */
  private void watch() {
    watching = server.onExit().thenAccept(watched -> {
      if (closed.getAsBoolean() || !supervised) {
        return;
      }
      log.error("redis on port {} exited unexpectedly with code {}; restarting it on the same port and dir {}. "
          + "{}", server.port(), watched.exitValue(), server.workDir(), server.tails());
      scheduleRestart(1, RESTART_BACKOFF_FIRST_MS);
    });
  }

  /** Restart attempt {@code attempt} runs once {@code backoffMs} has passed, unless closed first. */
  private void scheduleRestart(int attempt, long backoffMs) {
    synchronized (lock) {
      if (closed.getAsBoolean()) {
        return;
      }
      if (restarter == null) {
        restarter = Executors.newSingleThreadScheduledExecutor(r -> {
          Thread t = new Thread(r, "embedded-redis-restart-" + server.port());
          t.setDaemon(true);
          return t;
        });
      }
      pendingRestart = time.schedule(restarter, () -> restart(attempt, backoffMs), backoffMs, TimeUnit.MILLISECONDS);
    }
  }

  private void restart(int attempt, long backoffMs) {
    long nextBackoffMs = Math.min(backoffMs * 2, TimeUnit.SECONDS.toMillis(RESTART_BACKOFF_MAX_SECONDS));
    synchronized (lock) {
      pendingRestart = null;
      if (closed.getAsBoolean()) {
        return;
      }
      try {
        server.respawn();
        server.awaitPong();
        int n = restarts.incrementAndGet();
        log.warn("Restarted redis on port {} (restart {}, attempt {})", server.port(), n, attempt);
        watch();
        return;
      } catch (IOException | RuntimeException e) {
        log.error("Restarting redis on port {} failed (attempt {}); retrying in {} ms: {}", server.port(), attempt,
            nextBackoffMs, e.toString());
        server.destroyForcibly();
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
  void stopRestarts() {
    if (pendingRestart != null) {
      pendingRestart.cancel(false);
      pendingRestart = null;
    }
    if (restarter != null) {
      restarter.shutdownNow();
    }
  }

  /** How many times supervision restarted the server. */
  int restarts() {
    return restarts.get();
  }
}
