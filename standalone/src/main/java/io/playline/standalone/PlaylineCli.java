package io.playline.standalone;

import io.playline.roles.Secrets;
import io.playline.roles.cli.ApiCommand;
import io.playline.roles.cli.GatewayCommand;
import io.playline.roles.cli.JobCommand;
import io.playline.roles.cli.RolesCli;
import io.playline.roles.cli.NodeLogs;
import io.playline.standalone.cli.HistoryCommand;
import io.playline.standalone.cli.PlayCommand;
import io.playline.standalone.cli.StatusCommand;
import io.playline.standalone.cli.TokenCommand;
import org.slf4j.bridge.SLF4JBridgeHandler;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;

/** Entry point of {@code bin/playline}. Exit codes: 0 ok, 1 runtime failure, 2 usage or config error. */
@Command(
    name = "playline",
    mixinStandardHelpOptions = true,
    versionProvider = RolesCli.Version.class,
    description = "Playline play-history gateway.",
    footer = {"", "Also: bin/playline topology (the production topology on this machine: Redis Cluster, Kafka, "
        + "HBase and every role as processes) and, from a source checkout, bin/playline bench (load and baselines); "
        + "each takes --help."},
    subcommands = {StandaloneCommand.class, GatewayCommand.class, ApiCommand.class, JobCommand.class, TokenCommand.class,
        PlayCommand.class, HistoryCommand.class, StatusCommand.class, ConfigDocsCommand.class, HelpCommand.class})
public final class PlaylineCli {
  public static final int EXIT_RUNTIME = RolesCli.EXIT_RUNTIME;
  public static final int EXIT_USAGE = RolesCli.EXIT_USAGE;
  /** The public development secret standalone signs player tokens with when none is set (never the roles). */
  public static final String DEV_SECRET = Secrets.DEV_SECRET;
  /** The public development key standalone's internal API takes service tokens signed with when none is set. */
  public static final String DEV_API_SECRET = Secrets.DEV_API_SECRET;

  public static void main(String[] args) {
    // gRPC and some embedded servers log through java.util.logging; route it to SLF4J.
    SLF4JBridgeHandler.removeHandlersForRootLogger();
    SLF4JBridgeHandler.install();
    NodeLogs.ownedByThisProcess();
    System.exit(run(args));
  }

  /** Runs the command line and returns the exit code instead of exiting; for tests. */
  public static int run(String... args) {
    return run(new java.io.PrintWriter(System.out, true), new java.io.PrintWriter(System.err, true), args);
  }

  /** As {@link #run(String...)}, writing to {@code out} and {@code err}. */
  public static int run(java.io.PrintWriter out, java.io.PrintWriter err, String... args) {
    io.playline.roles.cli.ConfigOptions.checkKeysAgainst(ConfigurationDocs.catalogues());
    return RolesCli.commandLine(new PlaylineCli(), out, err).execute(args);
  }

}
