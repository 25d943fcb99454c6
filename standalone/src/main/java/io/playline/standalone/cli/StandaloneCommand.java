package io.playline.standalone.cli;

import io.playline.roles.cli.ConfigOptions;
import io.playline.standalone.StandaloneLauncher;
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
        "Start embedded real Redis, Kafka (KRaft) and HBase plus the gateway, core and job roles in one process.",
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
    StandaloneLauncher launcher = StandaloneLauncher.start(configOptions.load(extra));
    Runtime.getRuntime().addShutdownHook(new Thread(launcher::close, "playline-shutdown"));
    launcher.awaitStopped();
    return 0;
  }
}
