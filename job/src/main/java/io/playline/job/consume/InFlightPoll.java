package io.playline.job.consume;

import com.google.protobuf.InvalidProtocolBufferException;
import io.playline.job.metrics.JobMetrics;
import io.playline.proto.v1.HistoryChangeBatch;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The records of one poll while they are being persisted: the parsed batches in offset order and,
 * per partition, the offset to commit once they are (past unparsable records too, which are
 * skipped for good). Partitions revoked in a rebalance are dropped: their new owner redoes them.
 *
 * <p>Not thread-safe: confined to the consumer thread (rebalance callbacks run there too).
 */
final class InFlightPoll {
  private static final Logger log = LoggerFactory.getLogger(InFlightPoll.class);

  /** One parsed record. */
  record Parsed(TopicPartition partition, long offset, HistoryChangeBatch batch) {}

  private final List<Parsed> batches = new ArrayList<>();
  private final Map<TopicPartition, Long> nextOffsets = new HashMap<>();
  private int records;
  private long oldestTimestampMs = Long.MAX_VALUE;

  private InFlightPoll() {}

  /** The Kafka timestamp (ms) of the oldest record in this poll, or {@code Long.MAX_VALUE} when none. */
  long oldestTimestampMs() {
    return oldestTimestampMs;
  }

  /** Parses every record of {@code polled}; an unparsable one is logged, counted and skipped. */
  static InFlightPoll parse(ConsumerRecords<byte[], byte[]> polled, JobMetrics metrics) {
    InFlightPoll poll = new InFlightPoll();
    for (ConsumerRecord<byte[], byte[]> r : polled) {
      TopicPartition tp = new TopicPartition(r.topic(), r.partition());
      poll.records++;
      poll.nextOffsets.merge(tp, r.offset() + 1, Math::max);
      poll.oldestTimestampMs = Math.min(poll.oldestTimestampMs, r.timestamp());
      byte[] value = r.value();
      if (value == null) {
        metrics.parseFailure();
        log.warn("Skipping record {}@{}: no value", tp, r.offset());
        continue;
      }
      try {
        poll.batches.add(new Parsed(tp, r.offset(), HistoryChangeBatch.parseFrom(value)));
        metrics.batch();
      } catch (InvalidProtocolBufferException e) {
        metrics.parseFailure();
        log.warn("Skipping record {}@{}: {} bytes are not a HistoryChangeBatch ({})", tp, r.offset(), value.length,
            e.getMessage());
      }
    }
    metrics.records(poll.records);
    return poll;
  }

  /** Forgets the records of {@code partitions}, which this consumer no longer owns. */
  void revoke(Collection<TopicPartition> partitions) {
    int before = batches.size();
    batches.removeIf(p -> partitions.contains(p.partition()));
    nextOffsets.keySet().removeAll(partitions);
    if (before != batches.size()) {
      log.info("Dropped {} in-flight batches of revoked partitions {}; their new owner persists them",
          before - batches.size(), partitions);
    }
  }

  List<Parsed> batches() {
    return batches;
  }

  /** The offsets to commit for the partitions still in {@code assignment}. */
  Map<TopicPartition, OffsetAndMetadata> offsets(Set<TopicPartition> assignment) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    nextOffsets.forEach((tp, next) -> {
      if (assignment.contains(tp)) {
        offsets.put(tp, new OffsetAndMetadata(next));
      }
    });
    return offsets;
  }

  /** True when nothing of this poll is left to persist or commit. */
  boolean isEmpty() {
    return nextOffsets.isEmpty();
  }

  /** Kafka records in the poll as polled, parsable or not. */
  int records() {
    return records;
  }
}
