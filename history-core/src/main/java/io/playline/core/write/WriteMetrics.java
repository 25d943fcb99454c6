package io.playline.core.write;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;

/** Meters of the write-through: Redis round trips and commands, first-today checks. Thread-safe. */
public final class WriteMetrics {
  private final Counter roundTrips;
  private final Counter failedRoundTrips;
  private final Counter commands;
  private final Counter firstTodayCommands;
  private final DistributionSummary commandsPerRoundTrip;

  public WriteMetrics(MeterRegistry registry) {
    roundTrips = Counter.builder("playline.redis.round.trips").description("Pipelined write round trips to Redis")
        .register(registry);
    failedRoundTrips = Counter.builder("playline.redis.round.trips.failed").register(registry);
    commands = Counter.builder("playline.redis.commands").tag("path", "write").description("Redis commands sent")
        .register(registry);
    firstTodayCommands = Counter.builder("playline.first.today.redis.commands")
        .description("Redis commands spent on first-today checks").register(registry);
    commandsPerRoundTrip = DistributionSummary.builder("playline.redis.commands.per.round.trip").register(registry);
  }

  void roundTrip(int commandCount, int firstTodayCount) {
    roundTrips.increment();
    commands.increment(commandCount);
    firstTodayCommands.increment(firstTodayCount);
    commandsPerRoundTrip.record(commandCount);
  }

  void failedRoundTrip() {
    failedRoundTrips.increment();
  }
}
