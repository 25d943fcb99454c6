package io.playline.job.consume;

import io.playline.core.config.CoreConfig;
import io.playline.core.config.KafkaClient;
import io.playline.core.config.KafkaClientConfig;
import io.playline.core.kafka.KafkaTopics;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RetriableStoreException;
import io.playline.job.config.JobConfig;
import io.playline.job.metrics.JobMetrics;
import io.playline.job.sink.HistorySink;
import io.playline.job.stats.ItemCounters;
import io.playline.time.Time;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.jspecify.annotations.Nullable;

/**
 * The start-up of {@link HistoryConsumerLoop}: its consumer's settings, and one attempt at what
 * must exist before the first poll — the sink's table, the item counters' tables, the history
 * topic ({@link KafkaTopics}: created, or checked, a partition count other than the configured one
 * failing) — ending with the {@link PollPersister} the loop persists through. The loop retries an
 * attempt that failed transiently. Used by the loop's thread only.
 */
record ConsumerStartup(JobConfig config, CoreConfig core, String bootstrapServers, HistorySink sink,
    @Nullable ItemCounters counters, RedisConnections redis, JobMetrics metrics, Time time) {
  /**
   * The consumer settings: the job's group, manual commits, cooperative rebalancing, bounded polls,
   * plus the pass-through of {@code kafka.common.*} and {@code kafka.consumer.*} ({@link
   * KafkaClientConfig}).
   */
  static Map<String, Object> consumerProperties(JobConfig config, CoreConfig core, String bootstrapServers) {
    Map<String, Object> p = new HashMap<>();
    p.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, config.maxPollRecords());
    p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
    return core.kafkaClients().build(KafkaClient.CONSUMER, bootstrapServers, p);
  }

  Map<String, Object> consumerProperties() {
    return consumerProperties(config, core, bootstrapServers);
  }

  /**
   * One attempt: prepares the sink (then runs {@code sinkPrepared}), the counters' tables and the
   * topic, and opens the persister.
   *
   * @throws RetriableStoreException when a store or Kafka is down for now
   */
  PollPersister attempt(Runnable sinkPrepared) {
    sink.prepare();
    sinkPrepared.run();
    if (counters != null) {
      try {
        counters.prepare();
      } catch (IOException e) {
        throw new RetriableStoreException("creating the item counters' tables failed", e);
      }
    }
    String topicId = KafkaTopics.ensure(bootstrapServers, core.kafkaClients(), core.kafkaTopics(),
        List.of(core.kafkaTopics().history()), time).get(core.historyTopic());
    return new PollPersister(redis, core, config, sink, counters, topicId, metrics, time);
  }
}
