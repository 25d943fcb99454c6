package io.playline.roles.cli;

import io.playline.core.config.ConfigException;
import io.playline.roles.RoleSettings;
import io.playline.roles.StartupException;
import java.io.PrintWriter;
import org.slf4j.bridge.SLF4JBridgeHandler;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;

/**
 * Entry point of the production roles ({@code bin/playline gateway|api|job}): it runs on the roles'
 * own classpath, which holds no embedded server (no embedded Redis, Kafka broker or HBase server;
 * the standalone launcher adds those). Exit codes: 0 ok, 1 runtime failure, 2 usage or config error.
 */
@Command(
    name = "playline",
    mixinStandardHelpOptions = true,
    versionProvider = RolesCli.Version.class,
    description = "Playline's production roles, against external Redis, Kafka and HBase.",
    subcommands = {GatewayCommand.class, ApiCommand.class, JobCommand.class, HelpCommand.class})
public final class RolesCli {
  public static final int EXIT_RUNTIME = 1;
  public static final int EXIT_USAGE = 2;

  public static void main(String[] args) {
    // gRPC and some libraries log through java.util.logging; route it to SLF4J.
    SLF4JBridgeHandler.removeHandlersForRootLogger();
    SLF4JBridgeHandler.install();
    NodeLogs.ownedByThisProcess();
    ConfigOptions.checkKeysAgainst(RoleSettings.catalogues());
    System.exit(commandLine(new RolesCli(), new PrintWriter(System.out, true), new PrintWriter(System.err, true))
        .execute(args));
  }

  /**
   * The command line of {@code root} writing to {@code out} and {@code err}, with Playline's exit
   * codes: a config or usage error prints its message and exits {@value #EXIT_USAGE}, a failed
   * start {@value #EXIT_RUNTIME}.
   */
  public static CommandLine commandLine(Object root, PrintWriter out, PrintWriter err) {
    CommandLine cli = new CommandLine(root).setOut(out).setErr(err);
    cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
      if (e instanceof ConfigException || e instanceof IllegalArgumentException) {
        cmd.getErr().println("playline: " + e.getMessage());
        return EXIT_USAGE;
      }
      if (e instanceof StartupException) {
        cmd.getErr().println("playline: " + e.getMessage());
        return EXIT_RUNTIME;
      }
      throw e;
    });
    return cli;
  }

  /** The version from the jar manifest, or "dev" when run from classes. */
  public static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = RolesCli.class.getPackage().getImplementationVersion();
      return new String[] {"playline " + (v == null ? "dev" : v)};
    }
  }
}
