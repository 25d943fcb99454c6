package io.playline.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Reads the last lines of a server's log file for error messages; never throws. */
final class LogTail {

  private LogTail() {}

  /** Returns the last {@code maxLines} lines of {@code file}, or a note saying why there are none. */
  static String of(Path file, int maxLines) {
    if (!Files.isRegularFile(file)) {
      return "(no " + file + ")";
    }
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      List<String> tail = lines.subList(Math.max(0, lines.size() - maxLines), lines.size());
      return tail.isEmpty() ? "(" + file + " is empty)" : file + ":\n  " + String.join("\n  ", tail);
    } catch (IOException | RuntimeException e) {
      return "(cannot read " + file + ": " + e + ")";
    }
  }
}
