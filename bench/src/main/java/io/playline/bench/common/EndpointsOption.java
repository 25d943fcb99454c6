package io.playline.bench.common;

import io.playline.core.config.ConfigSource;
import io.playline.roles.endpoints.Endpoints;
import io.playline.standalone.StandaloneSettings;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** {@code --endpoints}: which running standalone a bench command measures, declared once for every command. */
public final class EndpointsOption {
  @Option(names = "--endpoints", paramLabel = "FILE",
      description = "The standalone's endpoints.json (default: $PLAYLINE_DATA_DIR/endpoints.json, else ./data/endpoints.json).")
  @Nullable Path endpoints;

  /** The file given, else {@code endpoints.json} in the data directory {@code config} names. */
  public Path file(ConfigSource config) {
    return endpoints != null ? endpoints : Path.of(StandaloneSettings.DATA_DIR.read(config)).resolve(Endpoints.FILE_NAME);
  }
}
