package io.playline.core.publish;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;

/** Meters of the first-today publisher: events acked, failed and dropped, and the queue. Thread-safe. */
public final class FirstTodayMetrics {
  private final MeterRegistry registry;
  final Counter published;
  final Counter failed;
  final Counter dropped;

  public FirstTodayMetrics(MeterRegistry registry) {
    this.registry = registry;
    published = Counter.builder("playline.first.today.published")
        .description("First-today events acked by Kafka").register(registry);
    failed = Counter.builder("playline.first.today.failed")
        .description("First-today events Kafka did not take (send or delivery failed)").register(registry);
    dropped = Counter.builder("playline.first.today.dropped")
        .description("First-today events dropped because the publish queue was full or closed").register(registry);
  }

  void queue(Collection<?> queue) {
    Gauge.builder("playline.first.today.queued", queue, Collection::size)
        .description("First-today events waiting for the publisher thread").register(registry);
  }

  /** Events acked by Kafka so far. */
  public double published() {
    return published.count();
  }

  /** Events whose send or delivery failed so far. */
  public double failed() {
    return failed.count();
  }

  /** Events dropped at the queue so far. */
  public double dropped() {
    return dropped.count();
  }
}
