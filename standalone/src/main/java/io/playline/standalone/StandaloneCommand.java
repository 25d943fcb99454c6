package io.playline.standalone;

import io.playline.roles.cli.ConfigOptions;
import io.playline.roles.cli.NodeLogs;
import io.playline.roles.cli.StopSignals;
import io.playline.standalone.StandaloneLauncher;
import io.playline.time.Time;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code playline standalone}: every role plus embedded real Redis, Kafka and HBase in one process. */
@Command(name = "standalone", mixinStandardHelpOptions = true,
    description = {
        "Start embedded real Redis, Kafka (KRaft) and HBase plus the gateway, api and job roles in one process.",
        "Data is kept under the data dir, so a restart keeps history. Stop with Ctrl-C or SIGTERM."})
public final class StandaloneCommand implements Callable<Integer> {
  @Option(names = "--data-dir", paramLabel = "DIR", description = "Data directory (default: $PLAYLINE_DATA_DIR or ./data).")
  @Nullable Path dataDir;

  @Mixin ConfigOptions configOptions = new ConfigOptions();

  @Override
  public Integer call() throws Exception {
    Map<String, String> extra = new HashMap<>();
    if (dataDir != null) {
      extra.put("data.dir", dataDir.toString());
    }
    var config = configOptions.load(extra);
    NodeLogs.writeTo(NodeLogs.dir(config));
    // Both before the start, so that Ctrl-C during start-up also stops what has started, in order:
    // the start ends at its next step. The signals stop it before the JVM shuts down; the hook covers
    // the other ways out (SIGHUP, a JVM without the signal API).
    StandaloneLauncher launcher = new StandaloneLauncher(Time.SYSTEM);
    StartStop stop = new StartStop();
    StopSignals.install(name -> {
      stop.received(name);
      launcher.close();
    });
    try {
      Runtime.getRuntime().addShutdownHook(new Thread(launcher::close, "playline-shutdown"));
      launcher.run(config);
    } catch (RuntimeException e) {
      if (!stop.explains(e, StartStop.SIGNAL_GRACE)) {
        throw e;
      }
      System.err.println("playline: stopped during start-up (Ctrl-C or SIGTERM)");
      return exitCode(stop.signal(), 130);
    }
    launcher.awaitStopped();
    return exitCode(stop.signal(), 0);
  }

  /** As a shell reports a process a signal ended: 128 + its number (SIGINT 130, SIGTERM 143). */
  private static int exitCode(@Nullable String signal, int otherwise) {
    return "INT".equals(signal) ? 130 : "TERM".equals(signal) ? 143 : otherwise;
  }
}
