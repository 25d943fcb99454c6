package io.playline.embedded;

import io.playline.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
    return runAll(threadName, List.of(stop), timeout);
  }

  /**
   * Runs every stop on a daemon thread of its own, all at once, and waits for all of them together
   * at most {@code timeout}; true when all finished, false when some were abandoned still running.
   */
  static boolean runAll(String threadName, List<Runnable> stops, Duration timeout) {
    List<Thread> stoppers = new ArrayList<>(stops.size());
    for (int i = 0; i < stops.size(); i++) {
      Thread stopper = new Thread(stops.get(i), stops.size() == 1 ? threadName : threadName + "-" + i);
      stopper.setDaemon(true);
      stopper.start();
      stoppers.add(stopper);
    }
    long deadline = Time.SYSTEM.nanoTime() + timeout.toNanos();
    boolean all = true;
    for (Thread stopper : stoppers) {
      long leftMillis = Math.max(1, (deadline - Time.SYSTEM.nanoTime()) / 1_000_000);
      try {
        stopper.join(leftMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      all &= !stopper.isAlive();
    }
    return all;
  }
}
