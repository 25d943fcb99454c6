package io.playline.bench.common;

import picocli.CommandLine.Option;

/**
 * {@code --events}: play events per heartbeat of the bench's players, declared once for the
 * commands that send heartbeats at a chosen size ({@code bench}, {@code bench hostile}: its honest
 * players).
 */
public final class EventsOption {
  @Option(names = "--events", paramLabel = "N", defaultValue = "1",
      description = "Play events per player heartbeat; 0 = keep-alives (default: ${DEFAULT-VALUE}).")
  int events = 1;

  /** Events per heartbeat: 1 unless given. */
  public int events() {
    return events;
  }
}
