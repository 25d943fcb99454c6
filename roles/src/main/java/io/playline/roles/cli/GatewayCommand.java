package io.playline.roles.cli;

import io.playline.core.config.ConfigSource;
import io.playline.roles.GatewayRole;
import io.playline.roles.Role;
import io.playline.roles.RoleBackends;
import io.playline.roles.RoleBackends.Need;
import io.playline.time.Time;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code playline gateway}: one gateway node ({@link GatewayRole}) until SIGTERM. */
@Command(name = "gateway", mixinStandardHelpOptions = true,
    description = {"Start a gateway node: the player WebSocket and gRPC streams (heartbeats, queries, push).",
        "With the admin port, against external Redis (redis.uri, redis.cluster), Kafka (kafka.bootstrap.servers)",
        "and HBase (hbase.zookeeper.quorum), or those named by --backends FILE. Needs auth.secret",
        "(PLAYLINE_AUTH_SECRET)."})
public final class GatewayCommand extends RoleCommand {
  @Override
  public String name() {
    return "gateway";
  }

  @Override
  public List<Need> needs() {
    return GatewayRole.NEEDS;
  }

  @Override
  public Role start(ConfigSource config, RoleBackends backends) {
    return GatewayRole.start(config, backends, Time.SYSTEM);
  }
}
