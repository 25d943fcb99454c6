package io.playline.job.consume;

import io.playline.job.metrics.JobMetrics;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer loop's answer to a rebalance: keeps the in-flight poll to the partitions this
 * consumer still owns, and pauses newly assigned ones while a failed poll is being retried.
 * Called by Kafka on the consumer loop's thread (inside {@code poll}), like everything else there.
 */
final class PartitionRebalance implements ConsumerRebalanceListener {
  private static final Logger log = LoggerFactory.getLogger(PartitionRebalance.class);

  private final Consumer<byte[], byte[]> consumer;
  private final JobMetrics metrics;
  private final Supplier<@Nullable InFlightPoll> inFlight;
  private final BooleanSupplier pausedForRetry;
  private final Set<TopicPartition> owned = new HashSet<>();

  PartitionRebalance(Consumer<byte[], byte[]> consumer, JobMetrics metrics, Supplier<@Nullable InFlightPoll> inFlight,
      BooleanSupplier pausedForRetry) {
    this.consumer = consumer;
    this.metrics = metrics;
    this.inFlight = inFlight;
    this.pausedForRetry = pausedForRetry;
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
    if (!partitions.isEmpty()) {
      log.info("Partitions revoked: {}", partitions);
    }
    owned.removeAll(partitions);
    metrics.partitionsAssigned(owned.size());
    InFlightPoll poll = inFlight.get();
    if (poll != null) {
      poll.revoke(partitions);
    }
  }

  @Override
  public void onPartitionsLost(Collection<TopicPartition> partitions) {
    log.warn("Partitions lost: {}", partitions);
    onPartitionsRevoked(partitions);
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
    if (!partitions.isEmpty()) {
      log.info("Partitions assigned: {}", partitions);
    }
    owned.addAll(partitions);
    metrics.partitionsAssigned(owned.size());
    if (pausedForRetry.getAsBoolean()) {
      consumer.pause(partitions);
    }
  }
}
