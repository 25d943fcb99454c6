package io.playline.bench.common;

import java.time.ZoneId;
import picocli.CommandLine.Option;

/**
 * {@code --zone}: the server's {@code flag.zone}, in which the players date their first-today
 * flags, declared once for the commands that connect players ({@code bench}, {@code bench hostile}).
 */
public final class ZoneOption {
  @Option(names = "--zone", defaultValue = "UTC", description = "The service's flag.zone (default: ${DEFAULT-VALUE}).")
  String zone = "UTC";

  /** The zone given, else UTC. */
  public ZoneId zone() {
    return ZoneId.of(zone);
  }
}
