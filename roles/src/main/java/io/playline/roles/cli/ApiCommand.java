package io.playline.roles.cli;

import io.playline.core.config.ConfigSource;
import io.playline.roles.ApiRole;
import io.playline.roles.Role;
import io.playline.roles.RoleBackends;
import io.playline.roles.RoleBackends.Need;
import io.playline.time.Time;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code playline api}: the internal History API ({@link ApiRole}) until SIGTERM. */
@Command(name = "api", mixinStandardHelpOptions = true,
    description = {"Start the internal playline.v1.History API for backends (api.port, health, reflection).",
        "With the admin port, against external Redis, Kafka and HBase (or those named by --backends FILE)."})
public final class ApiCommand extends RoleCommand {
  @Override
  public String name() {
    return "api";
  }

  @Override
  public List<Need> needs() {
    return ApiRole.NEEDS;
  }

  @Override
  public Role start(ConfigSource config, RoleBackends backends) {
    return ApiRole.start(config, backends, Time.SYSTEM);
  }
}
