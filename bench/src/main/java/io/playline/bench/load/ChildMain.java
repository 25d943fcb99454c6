package io.playline.bench.load;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

/**
 * Entry point of a generator child process ({@link ChildFleet}): runs one {@link LoadGenerator}
 * for the {@link LoadSpec} in its arguments and obeys one command per stdin line: {@code RATE <per
 * second> <ramp ms>}, {@code LIMIT <connections>}, {@code SNAP} (answered by one {@code @@SNAP
 * <snapshot>} line) and {@code STOP}. End of input also stops it, so an orphaned child never
 * outlives its parent's pipe. Protocol lines start with {@code @@}; anything else a library prints
 * is ignored by the parent. Single-threaded: the main thread reads commands.
 *
 * <p>The secret comes in {@code PLAYLINE_BENCH_SECRET}: not configuration but the parent's
 * hand-off, kept off the command line so {@code ps} does not show it.
 */
public final class ChildMain {
  static final String PREFIX = "@@";
  static final String SECRET_ENV = "PLAYLINE_BENCH_SECRET";

  private ChildMain() {}

  public static void main(String[] args) throws IOException {
    String secret = System.getenv(SECRET_ENV);
    if (secret == null) {
      System.err.println("bench child: " + SECRET_ENV + " is not set");
      System.exit(2);
    }
    PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
        StandardCharsets.UTF_8);
    // Whatever a library prints goes to stderr (the child's log): stdout carries the protocol only.
    System.setOut(System.err);
    LoadGenerator generator = LoadGenerator.start(LoadSpec.fromArgs(Arrays.asList(args), secret));
    out.println(PREFIX + "READY " + ProcessHandle.current().pid());
    try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] f = line.trim().split(" ");
        switch (f[0]) {
          case "RATE" -> generator.setRate(Double.parseDouble(f[1]), Duration.ofMillis(Long.parseLong(f[2])));
          case "LIMIT" -> generator.limitConnections(Integer.parseInt(f[1]));
          case "SNAP" -> out.println(PREFIX + "SNAP " + generator.snapshot().encode());
          case "STOP" -> {
            generator.close();
            out.println(PREFIX + "STOPPED");
            System.exit(0);
          }
          default -> System.err.println("bench child: unknown command " + line);
        }
      }
    }
    generator.close();
    System.exit(0);
  }
}
