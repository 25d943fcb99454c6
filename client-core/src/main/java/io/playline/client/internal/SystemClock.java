package io.playline.client.internal;

import java.time.Clock;
import java.util.concurrent.TimeUnit;

/**
 * The machine's clocks, and the only class of the client SDKs that reads them, so every clock
 * read of the client is one to find and the rest of the client takes its time from what it is
 * given: the session from its {@link Loop}'s {@link Loop#nowMs()} (which tests drive by hand),
 * event times from {@link ClientConfig#clock()}. The production loops ({@link ExecutorLoop},
 * client-sdk's {@code NettyLoop}) read {@link #nowMs()}; the transports' blocking shutdowns, which
 * wait for real threads and sockets off the loop, time their deadline with {@link #nanoTime()};
 * the builders hand {@link #wall()} to the config. client-sdk's {@code ClientArchitectureTest}
 * holds the client modules to it.
 */
public final class SystemClock {
  private SystemClock() {}

  /** Monotonic nanoseconds (not wall time), for a deadline of a wait on real threads. */
  public static long nanoTime() {
    return System.nanoTime();
  }

  /** Monotonic milliseconds (not wall time): a production {@link Loop}'s {@link Loop#nowMs()}. */
  public static long nowMs() {
    return TimeUnit.NANOSECONDS.toMillis(nanoTime());
  }

  /** The wall clock in UTC, for event times. */
  public static Clock wall() {
    return Clock.systemUTC();
  }
}
