package io.playline.bench.heartbeats;

import io.playline.bench.load.LoadSpec.FlagMode;
import java.time.Duration;
import java.util.List;

/**
 * The benchmark's scenarios and their defaults; every default can be overridden by a flag.
 *
 * @param connections player connections
 * @param ratePerConnection offered heartbeats per second per connection (rate pacing), 0 for interval pacing
 * @param intervalMin with intervalMax: per-connection heartbeat interval (interval pacing)
 * @param intervalMax upper bound
 * @param window heartbeats a connection may have unacked
 * @param warmup warm-up (the ramp is part of it)
 * @param ramp ramp of the offered rate
 * @param measure measured window
 * @param passes passes (Playline alternating with each baseline)
 * @param baselines {@code echo}, {@code redis}
 * @param memory sample RSS and heap per connection
 * @param flagModes one Playline run per mode in each pass
 */
record Scenario(String name, int connections, double ratePerConnection, Duration intervalMin, Duration intervalMax,
    int window, Duration warmup, Duration ramp, Duration measure, int passes, List<String> baselines, boolean memory,
    List<FlagMode> flagModes) {

  /**
   * (a) Peak throughput with short heartbeats: each connection offers 16/s (the server allows 20),
   * 96 000/s in all — above what the bare echo server reaches on 2 cores, so every side is
   * measured at its ceiling, not at the offered rate.
   */
  static final Scenario PEAK = new Scenario("peak", 6000, 16, Duration.ZERO, Duration.ZERO, 1, secs(8), secs(5),
      secs(10), 3, List.of("redis", "echo"), false, List.of(FlagMode.TODAY));
  /** (d) A fixed offered rate, ramped up during warm-up, for latency against the echo ceiling at the same rate. */
  static final Scenario LATENCY = new Scenario("latency", 1000, 5, Duration.ZERO, Duration.ZERO, 8, secs(8), secs(6),
      secs(10), 3, List.of("echo"), false, List.of(FlagMode.TODAY));
  /** (b) Many idle connections at realistic 15-30 s heartbeats: memory per connection. */
  static final Scenario IDLE = new Scenario("idle", 15000, 0, secs(15), secs(30), 1, secs(10), Duration.ZERO,
      secs(20), 1, List.of(), true, List.of(FlagMode.TODAY));
  /** (c) Echoing vs non-echoing clients: what the first-today check costs in Redis. */
  static final Scenario FIRST_TODAY = new Scenario("first-today", 2000, 2, Duration.ZERO, Duration.ZERO, 4, secs(5),
      secs(3), secs(10), 1, List.of(), false, List.of(FlagMode.TODAY, FlagMode.NONE));

  static Scenario named(String name) {
    for (Scenario s : List.of(PEAK, LATENCY, IDLE, FIRST_TODAY)) {
      if (s.name.equals(name)) {
        return s;
      }
    }
    throw new IllegalArgumentException("--scenario: " + name + " (expected: peak, latency, idle, first-today)");
  }

  boolean intervalPacing() {
    return ratePerConnection == 0;
  }

  private static Duration secs(long s) {
    return Duration.ofSeconds(s);
  }
}
