package io.playline.embedded;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Runs a shutdown step that may block without limit (embedded servers' own shutdown calls) on a
 * daemon thread and waits for it at most a given time, so closing an embedded server is always
 * bounded. Stateless.
 */
final class BoundedStop {
  private BoundedStop() {}

  /**
   * Waits at most {@code timeout} for {@code process} to exit; true if it has. If interrupted,
   * kills it with SIGKILL (the caller is being cancelled and must not leave it behind), sets the
   * interrupt flag again and returns false.
   */
  static boolean waitForExit(Process process, Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      return false;
    }
  }

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
