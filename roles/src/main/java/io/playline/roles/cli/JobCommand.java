package io.playline.roles.cli;

import io.playline.core.config.ConfigSource;
import io.playline.roles.JobRole;
import io.playline.roles.Role;
import io.playline.roles.RoleBackends;
import io.playline.roles.RoleBackends.Need;
import io.playline.time.Time;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code playline job}: one job instance ({@link JobRole}) until SIGTERM. */
@Command(name = "job", mixinStandardHelpOptions = true,
    description = {"Start a job instance: Kafka write-back -> HBase, and recovery sweeps (instances share the work).",
        "One consumer group, against external Redis, Kafka and HBase (or those named by --backends FILE)."})
public final class JobCommand extends RoleCommand {
  @Override
  public String name() {
    return "job";
  }

  @Override
  public List<Need> needs() {
    return JobRole.NEEDS;
  }

  @Override
  public Role start(ConfigSource config, RoleBackends backends) {
    return JobRole.start(config, backends, Time.SYSTEM);
  }
}
