package io.playline.standalone;

import io.playline.core.config.ConfigSource;
import io.playline.standalone.RoleBackends.Need;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code playline job}: one job instance ({@link JobRole}) until SIGTERM. */
@Command(name = "job", mixinStandardHelpOptions = true,
    description = {"Start a job instance: Kafka write-back -> HBase, and recovery sweeps; instances share the work",
        "(one consumer group). Against external Redis, Kafka and HBase (or those named by --backends FILE)."})
final class JobCommand extends RoleCommand {
  @Override
  String name() {
    return "job";
  }

  @Override
  List<Need> needs() {
    return JobRole.NEEDS;
  }

  @Override
  Role start(ConfigSource config, RoleBackends backends) {
    return JobRole.start(config, backends);
  }
}
