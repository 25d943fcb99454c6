package io.playline.client.internal;

/**
 * The single thread a {@link ClientSession} is confined to, with its timers and its monotonic
 * clock. Production uses the client's Netty event loop ({@code NettyLoop} in client-sdk); tests drive a manual
 * one so timing is deterministic.
 */
public interface Loop {
  /** A scheduled task that may still be cancelled. */
  interface Scheduled {
    /** Cancels the task if it has not run; idempotent. */
    void cancel();
  }

  /** Whether the calling thread is this loop. */
  boolean inLoop();

  /** Runs {@code task} on the loop, after the tasks already queued; thread-safe. */
  void execute(Runnable task);

  /** Runs {@code task} on the loop after {@code delayMs} milliseconds (0 = soon); call on the loop. */
  Scheduled schedule(Runnable task, long delayMs);

  /** Monotonic milliseconds (not wall time), for timeouts and deadlines. */
  long nowMs();
}
