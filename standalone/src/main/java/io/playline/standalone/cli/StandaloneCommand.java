package io.playline.standalone.cli;

import io.playline.roles.cli.ConfigOptions;
import io.playline.standalone.StandaloneLauncher;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
    // Registered before the start, so that Ctrl-C during start-up also stops what has started, in
    // order, once the start returns (a hook added after it could miss the signal).
    CompletableFuture<StandaloneLauncher> started = new CompletableFuture<>();
    Thread starting = Thread.currentThread();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      if (!started.isDone()) {
        starting.interrupt(); // stops waiting for the components that are not ready yet
      }
      try {
        started.get(2, TimeUnit.MINUTES).close();
      } catch (ExecutionException | TimeoutException e) {
        // The start failed (it stops what it started) or never ended: nothing of ours to stop.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "playline-shutdown"));
    StandaloneLauncher launcher;
    try {
      launcher = StandaloneLauncher.start(config);
    } catch (IllegalStateException e) {
      started.completeExceptionally(e);
      if (String.valueOf(e.getMessage()).contains("Shutdown in progress")) {
        System.err.println("playline: stopped during start-up (Ctrl-C or SIGTERM)");
        return 130;
      }
      throw e;
    } catch (Exception | Error e) {
      started.completeExceptionally(e);
      throw e;
    }
    started.complete(launcher);
    try {
      launcher.awaitStopped();
    } catch (InterruptedException e) {
      return 130; // stopped during start-up: the shutdown hook stops it
    }
    return 0;
  }
}
