package io.playline.embedded;

import io.playline.time.Time;
import java.io.IOException;
import java.time.Duration;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Waits until an embedded {@code redis-server} answers PING, telling a server that is still
 * replaying its append-only file (alive, answering {@code LOADING}) from one that is stuck.
 * Stateless; blocks the calling thread while it waits.
 */
final class RedisReadiness {
  private static final String HOST = "127.0.0.1";
  private static final Duration PING_TIMEOUT = Duration.ofMillis(500);

  private RedisReadiness() {
  }

  /** Checks, between PINGs, that the server can still answer (e.g. its process is alive). */
  interface Liveness {
    void check() throws IOException;
  }

  /**
   * Waits until the server on {@code port} answers PING. A server that answers {@code LOADING}
   * (replaying its append-only file after a restart) is making progress: it gets {@code ready}
   * again after each such answer, up to {@code loading} in all.
   */
  static void awaitPong(int port, Duration ready, Duration loading, Liveness liveness, Supplier<String> what,
      Supplier<String> tails) throws IOException {
    long start = Time.SYSTEM.nanoTime();
    long deadline = start + ready.toNanos();
    long loadingDeadline = start + loading.toNanos();
    @Nullable IOException lastFailure = null;
    boolean wasLoading = false;
    while (true) {
      liveness.check();
      boolean loadingNow = false;
      try {
        if ("PONG".equals(RespClient.call(HOST, port, PING_TIMEOUT, "PING"))) {
          return;
        }
      } catch (IOException e) {
        lastFailure = e;
        String m = e.getMessage();
        loadingNow = m != null && m.contains("LOADING");
      }
      long now = Time.SYSTEM.nanoTime();
      if (loadingNow) {
        // A server answering LOADING is alive: ask again until the loading bound, however long
        // this thread was kept from asking (a busy machine), and give it `ready` once it stops.
        wasLoading = true;
        deadline = loadingDeadline - (now + ready.toNanos()) < 0 ? loadingDeadline : now + ready.toNanos();
        if (now - loadingDeadline >= 0) {
          break;
        }
      } else if (now - deadline >= 0) {
        break;
      }
      Polling.pause(Duration.ofMillis(10), "redis-server");
    }
    throw new IOException(what.get() + " did not answer PING within " + ready.toMillis() + " ms"
        + (wasLoading ? " after loading its data (at most " + loading.toSeconds() + " s)" : "")
        + " (last failure: " + lastFailure + "); " + tails.get());
  }
}
