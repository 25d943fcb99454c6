package io.playline.client.internal;

import org.jspecify.annotations.Nullable;

/**
 * When a {@link ClientSession} heartbeats: the interval the gateway announced at auth (bounded
 * below, a default when it announced none), the timer of the next tick, and how long a heartbeat
 * may go unanswered before the connection counts as stalled.
 *
 * <p>Confined to the session's {@link Loop}.
 */
final class HeartbeatCadence {
  static final long DEFAULT_INTERVAL_MS = 15_000;
  static final long MIN_INTERVAL_MS = 100;

  private final Loop loop;
  private final long connectTimeoutMs;
  private final Runnable tick;
  private long intervalMs = DEFAULT_INTERVAL_MS;
  private Loop.@Nullable Scheduled timer;

  /** {@code tick} runs on the loop once per interval after each {@link #schedule()}. */
  HeartbeatCadence(Loop loop, long connectTimeoutMs, Runnable tick) {
    this.loop = loop;
    this.connectTimeoutMs = connectTimeoutMs;
    this.tick = tick;
  }

  /** Takes the interval an {@code AuthOk} announced (0: none). */
  void announced(int announcedMs) {
    intervalMs = announcedMs > 0 ? Math.max(MIN_INTERVAL_MS, announcedMs) : DEFAULT_INTERVAL_MS;
  }

  long intervalMs() {
    return intervalMs;
  }

  /** How long the oldest heartbeat may wait for its ack: two intervals and a connect timeout. */
  long ackTimeoutMs() {
    return 2 * intervalMs + connectTimeoutMs;
  }

  /** Schedules the next tick one interval from now. */
  void schedule() {
    timer = loop.schedule(() -> {
      timer = null;
      tick.run();
    }, intervalMs);
  }

  void cancel() {
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
  }
}
