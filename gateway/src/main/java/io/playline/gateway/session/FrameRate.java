package io.playline.gateway.session;

import java.util.concurrent.TimeUnit;

/**
 * One connection's frame rate against {@code connection.max.frames.per.second}, counted in
 * one-second windows: over the limit a frame is refused with an answer; a client that keeps going
 * past twice the limit is not listening and is closed.
 *
 * <p>Confined to the connection's executor.
 */
final class FrameRate {
  enum Verdict { PASS, REFUSE, CLOSE }

  private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final int limit;
  private long windowStartNanos;
  private int framesInWindow;

  FrameRate(int limit) {
    this.limit = limit;
  }

  /** Counts a frame read at {@code nowNanos}. */
  Verdict count(long nowNanos) {
    if (nowNanos - windowStartNanos >= WINDOW_NANOS) {
      windowStartNanos = nowNanos;
      framesInWindow = 0;
    }
    int inWindow = ++framesInWindow;
    return inWindow <= limit ? Verdict.PASS : inWindow > 2 * limit ? Verdict.CLOSE : Verdict.REFUSE;
  }

  /** What a refused or closed client is told. */
  String message() {
    return "more than " + limit + " frames per second";
  }
}
