package io.playline.client.internal;

/**
 * When to reconnect: after a healthy connection is lost, retry 0 of the {@link Backoff}; after
 * each failed attempt, the next retry; at once when the session merely expired (the next attempt
 * uses a fresh token); at the time a {@code Reconnect} push asked for (plus jitter); never again
 * after {@code maxAttempts} consecutive failed attempts.
 *
 * <p>Confined to the client's loop.
 */
final class ReconnectPolicy {
  /** {@link #nextDelayMs} when the client should give up. */
  static final long GIVE_UP = -1;

  private final Backoff backoff;
  private final int maxAttempts;
  private final Loop loop;
  private int failures;
  private boolean atOnce;
  private long reconnectAtMs = -1;

  ReconnectPolicy(Backoff backoff, int maxAttempts, Loop loop) {
    this.backoff = backoff;
    this.maxAttempts = maxAttempts;
    this.loop = loop;
  }

  /** A connection was authenticated: the failure streak is over. */
  void connected() {
    failures = 0;
  }

  /** The network changed: past failures and a wait the gateway asked for say nothing about the new one. */
  void reset() {
    failures = 0;
    reconnectAtMs = -1;
  }

  /** The next attempt should start right away, without counting this one as failed. */
  void retryAtOnce() {
    atOnce = true;
  }

  /** The gateway asked to reconnect in {@code afterMs}; a little jitter spreads its clients. */
  void reconnectAfter(long afterMs) {
    reconnectAtMs = loop.nowMs() + afterMs + backoff.jitterMs();
  }

  /**
   * A connection (or an attempt) ended; {@code wasConnected} when it had been authenticated.
   * Returns how long to wait before the next attempt, or {@link #GIVE_UP}.
   */
  long nextDelayMs(boolean wasConnected) {
    if (atOnce) {
      atOnce = false;
      return 0;
    }
    if (!wasConnected && ++failures >= maxAttempts) {
      return GIVE_UP;
    }
    if (reconnectAtMs >= 0) {
      long delay = Math.max(0, reconnectAtMs - loop.nowMs());
      reconnectAtMs = -1;
      return delay;
    }
    return backoff.delayMs(failures);
  }

  /** Consecutive failed attempts. */
  int failures() {
    return failures;
  }
}
