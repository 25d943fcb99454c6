package io.playline.api;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the {@code curl} command (a client nobody here wrote); CI installs it before the tests. */
final class Curl {
  /** What came back: the HTTP status and the body. */
  record Answer(int status, String body) {}

  private Curl() {}

  /** {@code curl -sS ARGS} bounded to 30 s; fails when curl is missing or cannot connect. */
  static Answer run(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("curl", "-sS", "--max-time", "20", "-w", "\n%{http_code}"));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("curl did not finish: " + command);
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      throw new IllegalStateException("curl exited " + p.exitValue() + ": " + out);
    }
    int newline = out.lastIndexOf('\n');
    return new Answer(Integer.parseInt(out.substring(newline + 1).trim()), out.substring(0, newline));
  }
}
