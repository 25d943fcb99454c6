package io.playline.core.publish;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Meters of the first-today publisher: events acked (sent by the node that counted them, or by a
 * sweep), sends that failed, events left to the sweep, sweeps, and the outbox depth. Thread-safe.
 */
public final class FirstTodayMetrics {
  private final MeterRegistry registry;
  final Counter published;
  final Counter swept;
  final Counter failed;
  final Counter deferred;
  final Counter sweeps;
  final Counter sweepFailures;
  final Counter removeFailures;
  final Counter invalid;
  final AtomicLong depth = new AtomicLong();

  public FirstTodayMetrics(MeterRegistry registry) {
    this.registry = registry;
    published = counter(registry, "playline.first.today.published",
        "First-today events acked by Kafka, sent by the node that counted them");
    swept = counter(registry, "playline.first.today.swept", "First-today events acked by Kafka, sent by an outbox sweep");
    failed = counter(registry, "playline.first.today.failed",
        "First-today sends Kafka did not take (send or delivery failed); the event stays in its outbox");
    deferred = counter(registry, "playline.first.today.deferred",
        "First-today events left to the outbox sweep: the publish queue was full or closed");
    sweeps = counter(registry, "playline.first.today.outbox.sweeps", "First-today outbox sweeps run");
    sweepFailures = counter(registry, "playline.first.today.outbox.sweep.failures",
        "First-today outbox sweeps stopped by a Redis failure");
    removeFailures = counter(registry, "playline.first.today.outbox.remove.failures",
        "Outbox entries not removed after Kafka's ack (a sweep sends them again)");
    invalid = counter(registry, "playline.first.today.outbox.invalid",
        "Outbox entries that were not a FirstTodayEvent (removed unsent)");
    Gauge.builder("playline.first.today.outbox.depth", depth, AtomicLong::get).strongReference(true)
        .description("First-today events in the outboxes (not yet acked by Kafka), as of this node's last sweep")
        .register(registry);
  }

  private static Counter counter(MeterRegistry registry, String name, String description) {
    return Counter.builder(name).description(description).register(registry);
  }

  void queue(Collection<?> queue) {
    Gauge.builder("playline.first.today.queued", queue, Collection::size)
        .description("First-today events waiting for the publisher thread").register(registry);
  }

  /** Events acked by Kafka that this node counted. */
  public double published() {
    return published.count();
  }

  /** Events acked by Kafka that a sweep of this node sent. */
  public double swept() {
    return swept.count();
  }

  /** Sends that failed so far. */
  public double failed() {
    return failed.count();
  }

  /** Events left to the sweep at the queue so far. */
  public double deferred() {
    return deferred.count();
  }

  /** Sweeps run so far. */
  public double sweeps() {
    return sweeps.count();
  }

  /** The outbox depth seen by the last complete sweep. */
  public long depth() {
    return depth.get();
  }
}
