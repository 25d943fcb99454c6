package io.playline.bench;

import io.playline.bench.heartbeats.BenchEnvironment;
import io.playline.bench.heartbeats.BenchOptions;
import io.playline.bench.heartbeats.BenchRunner;
import io.playline.bench.heavy.HeavyCommand;
import io.playline.bench.hostile.HostileCommand;
import io.playline.bench.reads.ReadsCommand;
import io.playline.standalone.PlaylineCli;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code bin/playline bench} (this module's entry point; the bench is a leaf nothing in production
 * depends on): the load generator and its baselines against a running standalone (and
 * extra gateway processes it may start with this launcher's {@code gateway} command), or {@code
 * bench jmh} for the microbenchmarks. Tokens default to the standalone's development secret.
 * Runs on the calling thread.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, subcommands = {JmhCommand.class, ReadsCommand.class, HeavyCommand.class,
    HostileCommand.class},
    description = {"Benchmark a running Playline (bin/playline standalone) against a bare WebSocket echo server and",
        "Redis alone with Playline's command mix; print medians over passes and the issue's targets.",
        "Scenarios: peak, latency, idle, first-today. All load goes to 127.0.0.0/8."})
public final class BenchCli implements Callable<Integer> {
  @Mixin BenchOptions options = new BenchOptions();

  @Option(names = "--gateway-java-opts", paramLabel = "FLAGS", defaultValue = "${env:PLAYLINE_GATEWAY_JAVA_OPTS}",
      description = "Heap and collector flags of the gateways --spawn-gateways starts, in place of the bench's own "
          + "(default: $PLAYLINE_GATEWAY_JAVA_OPTS, the gateway role's flags bin/playline exports).")
  @Nullable String gatewayJavaOpts;

  public static void main(String[] args) {
    io.playline.roles.cli.ConfigOptions.checkKeysAgainst(io.playline.standalone.ConfigurationDocs.catalogues());
    System.exit(new CommandLine(new BenchCli()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    List<String> gateway = new ArrayList<>();
    gateway.add(ProcessHandle.current().info().command().orElse("java"));
    gateway.addAll(gatewayJvmArgs(ManagementFactory.getRuntimeMXBean().getInputArguments(), gatewayJavaOpts));
    gateway.add("-cp");
    gateway.add(System.getProperty("java.class.path"));
    gateway.add(PlaylineCli.class.getName());
    gateway.add("gateway");
    return BenchRunner.run(options, new BenchEnvironment(PlaylineCli.DEV_SECRET, gateway), System.out);
  }

  /**
   * The JVM flags of a spawned gateway: this JVM's flags (module opens, system properties) with
   * its heap and collector flags replaced by {@code gatewayOpts} ({@code --gateway-java-opts},
   * whose default is the gateway role's sizing bin/playline exports), so a spawned gateway runs
   * exactly as {@code bin/playline gateway} would.
   */
  static List<String> gatewayJvmArgs(List<String> own, @Nullable String gatewayOpts) {
    if (gatewayOpts == null || gatewayOpts.isBlank()) {
      return own;
    }
    List<String> args = new ArrayList<>();
    for (String a : own) {
      if (!(a.startsWith("-Xms") || a.startsWith("-Xmx") || a.startsWith("-Xmn")
          || a.matches("-XX:[+-]Use\\w+GC"))) {
        args.add(a);
      }
    }
    args.addAll(List.of(gatewayOpts.trim().split("\\s+")));
    return args;
  }
}
