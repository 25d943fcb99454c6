package io.playline.embedded;

import java.io.InterruptedIOException;
import java.time.Duration;

/** Pauses between the probes of a bounded readiness wait. Stateless. */
final class Polling {

  private Polling() {}

  /**
   * Sleeps for {@code duration}.
   *
   * @throws InterruptedIOException if interrupted (the interrupt flag is set again), naming what
   *     was awaited
   */
  static void pause(Duration duration, String awaited) throws InterruptedIOException {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for " + awaited);
    }
  }
}
