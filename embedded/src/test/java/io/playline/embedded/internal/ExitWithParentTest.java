package io.playline.embedded.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ExitWithParentTest {

  /** A main class that never returns by itself, as a server's does not. */
  public static final class RunForever {
    private RunForever() {}

    public static void main(String[] args) throws InterruptedException {
      Thread.sleep(Long.MAX_VALUE);
    }
  }

  @Test
  void childExitsWhenItsStdinPipeClosesAsWhenTheParentDies() throws Exception {
    Process child = start();
    try {
      assertThat(child.waitFor(500, TimeUnit.MILLISECONDS)).isFalse();

      // What the operating system does to the pipe when the parent dies, even by kill -9.
      child.getOutputStream().close();

      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(child.exitValue()).isEqualTo(ExitWithParent.PARENT_GONE_STATUS);
    } finally {
      child.destroyForcibly();
    }
  }

  private static Process start() throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(List.of(java, "-Xmx32m", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"),
        ExitWithParent.class.getName(), RunForever.class.getName()))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start();
  }
}
