package io.playline.standalone.cli;

import io.playline.core.config.ConfigSource;
import io.playline.roles.RoleSettings;
import io.playline.roles.cli.ConfigOptions;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * How an operator command finds its node ({@link TargetNode}): {@code --data-dir} and the config
 * options ({@code --config}, {@code --set}), which also give the keys tokens are signed with.
 */
final class TargetOptions {
  @Option(names = "--data-dir", paramLabel = "DIR", description = "Talk to the standalone running on this data dir, "
      + "as its endpoints.json says (default: $PLAYLINE_DATA_DIR, else ./data).")
  @Nullable Path dataDir;

  @Mixin ConfigOptions config = new ConfigOptions();

  private @Nullable ConfigSource loaded;

  /** The command's layered config, {@code --data-dir} as {@code data.dir}; loaded once. */
  ConfigSource config() {
    ConfigSource c = loaded;
    if (c == null) {
      Path dir = dataDir;
      c = config.load(dir == null ? Map.of() : Map.of(RoleSettings.DATA_DIR.key(), dir.toString()));
      loaded = c;
    }
    return c;
  }

  /**
   * The address of {@code port}, given the command's address option ({@code null}: not given),
   * after saying on {@code err} which node that is and why.
   */
  String address(TargetNode.Port port, @Nullable String option, PrintWriter err) {
    TargetNode.Address address = TargetNode.of(config()).address(port, option);
    err.println(address.describe(port));
    err.flush();
    return address.value();
  }
}
