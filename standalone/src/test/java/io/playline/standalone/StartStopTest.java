package io.playline.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** How {@code playline standalone} tells a start stopped by Ctrl-C from a start that failed. */
class StartStopTest {
  private static final RuntimeException CHILD_KILLED = new IllegalStateException("could not start the embedded servers",
      new IOException("Cannot run program \"/usr/bin/setsid\": error=0, Failed to exec spawn helper: signal: 2"));

  @Test
  void aFailureWithNoSignalIsAFailure() throws InterruptedException {
    StartStop stop = new StartStop();
    assertThat(stop.explains(CHILD_KILLED, Duration.ZERO)).isFalse();
    assertThat(stop.signal()).isNull();
  }

  @Test
  void aSignalBeforeTheFailureExplainsIt() throws InterruptedException {
    StartStop stop = new StartStop();
    stop.received("INT");
    assertThat(stop.explains(CHILD_KILLED, Duration.ZERO)).isTrue();
    assertThat(stop.signal()).isEqualTo("INT");
  }

  /** The failure of a child the signal killed reaches the start before the JVM runs the handler. */
  @Test
  void aSignalArrivingAfterTheFailureExplainsIt() throws InterruptedException {
    StartStop stop = new StartStop();
    CountDownLatch waiting = new CountDownLatch(1);
    Thread handler = new Thread(() -> {
      try {
        waiting.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      stop.received("TERM");
    });
    handler.start();
    waiting.countDown();
    assertThat(stop.explains(CHILD_KILLED, Duration.ofMinutes(1))).isTrue();
    assertThat(stop.signal()).isEqualTo("TERM");
  }

  @Test
  void theFirstSignalIsTheOneReported() throws InterruptedException {
    StartStop stop = new StartStop();
    stop.received("TERM");
    stop.received("INT");
    assertThat(stop.signal()).isEqualTo("TERM");
  }

  @Test
  void theLauncherSayingItStoppedNeedsNoSignal() throws InterruptedException {
    StartStop stop = new StartStop();
    assertThat(stop.explains(new StandaloneLauncher.StoppedDuringStartException(), Duration.ZERO)).isTrue();
    assertThat(stop.explains(new IllegalStateException("Shutdown in progress"), Duration.ZERO)).isTrue();
  }
}
