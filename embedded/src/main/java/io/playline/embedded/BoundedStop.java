package io.playline.embedded;

import java.time.Duration;

/**
 * Runs a shutdown step that may block without limit (embedded servers' own shutdown calls) on a
 * daemon thread and waits for it at most a given time, so closing an embedded server is always
 * bounded. Stateless.
 */
final class BoundedStop {
  private BoundedStop() {}

  /** True when {@code stop} finished within {@code timeout}; false when it was abandoned still running. */
  static boolean run(String threadName, Runnable stop, Duration timeout) {
    Thread stopper = new Thread(stop, threadName);
    stopper.setDaemon(true);
    stopper.start();
    try {
      stopper.join(timeout.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return !stopper.isAlive();
  }
}
