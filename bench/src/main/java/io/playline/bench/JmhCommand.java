package io.playline.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * {@code bin/playline bench jmh [JMH options] [benchmark regex]}: the JMH microbenchmarks of
 * {@code io.playline.bench.jmh} with short defaults that suit a 2-core machine (1 fork, 2 warm-up
 * and 3 measured iterations of 2 s); any JMH option given overrides them. Runs on the calling thread.
 */
@Command(name = "jmh", mixinStandardHelpOptions = true,
    description = {"Run the JMH microbenchmarks (frame codec, heartbeat batcher, write-back merge, Connect JSON).",
        "Defaults: -f 1 -wi 2 -w 2s -i 3 -r 2s; any JMH option (e.g. -prof gc, -rf json) or benchmark regex",
        "after 'jmh' is passed to JMH unchanged."})
public final class JmhCommand implements Callable<Integer> {
  /** Option and value pairs that suit a 2-core machine, each used unless the caller gives the option. */
  private static final List<String> DEFAULTS = List.of("-f", "1", "-wi", "2", "-w", "2s", "-i", "3", "-r", "2s");

  /** Everything after {@code jmh} that is not -h/-V goes to JMH unchanged, in order. */
  @Unmatched
  List<String> args = new ArrayList<>();

  @Override
  public Integer call() throws CommandLineOptionException, RunnerException {
    new Runner(new CommandLineOptions(withDefaults(args).toArray(new String[0]))).run();
    return 0;
  }

  /**
   * {@code args} after the defaults that it does not set itself: JMH refuses an option given twice,
   * so a default the caller overrides is left out rather than passed beside the caller's.
   */
  static List<String> withDefaults(List<String> args) {
    List<String> all = new ArrayList<>();
    for (int i = 0; i < DEFAULTS.size(); i += 2) {
      if (!args.contains(DEFAULTS.get(i))) {
        all.addAll(DEFAULTS.subList(i, i + 2));
      }
    }
    all.addAll(args);
    return all;
  }
}
