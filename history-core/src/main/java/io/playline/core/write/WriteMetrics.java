package io.playline.core.write;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.playline.time.LogThrottle;
import io.playline.time.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Meters of the write-through: Redis round trips and commands, first-today checks and events a full
 * outbox did not take. Thread-safe.
 */
public final class WriteMetrics {
  private static final Logger log = LoggerFactory.getLogger(WriteMetrics.class);

  private final Counter roundTrips;
  private final Counter failedRoundTrips;
  private final Counter commands;
  private final Counter firstTodayCommands;
  private final DistributionSummary commandsPerRoundTrip;
  private final Counter firstTodayOutboxFull;
  private final LogThrottle outboxWarnings;

  /** Meters on {@code registry}; warnings throttled by {@code time}. */
  public WriteMetrics(MeterRegistry registry, Time time) {
    this.outboxWarnings = new LogThrottle(time);
    roundTrips = Counter.builder("playline.redis.round.trips").description("Pipelined write round trips to Redis")
        .register(registry);
    failedRoundTrips = Counter.builder("playline.redis.round.trips.failed").register(registry);
    commands = Counter.builder("playline.redis.commands").tag("path", "write").description("Redis commands sent")
        .register(registry);
    firstTodayCommands = Counter.builder("playline.first.today.redis.commands")
        .description("Redis commands spent on first-today checks").register(registry);
    commandsPerRoundTrip = DistributionSummary.builder("playline.redis.commands.per.round.trip").register(registry);
    firstTodayOutboxFull = Counter.builder("playline.first.today.outbox.full")
        .description("First-today events not kept in a full outbox (published from memory only, at most once)")
        .register(registry);
  }

  /** Counts (and logs, at most every 10 s) a first-today event its full outbox did not take. */
  void firstTodayOutboxFull(long uid) {
    firstTodayOutboxFull.increment();
    if (outboxWarnings.tryAcquire()) {
      log.warn("First-today outbox full (first.today.outbox.capacity): the event of uid {} is published from memory "
          + "only, at most once ({} so far); is Kafka or the first-today publisher down?", uid,
          (long) firstTodayOutboxFull.count());
    }
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
