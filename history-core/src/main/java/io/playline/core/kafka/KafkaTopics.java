package io.playline.core.kafka;

import io.playline.core.config.ConfigException;
import io.playline.core.config.KafkaClient;
import io.playline.core.config.KafkaClientConfig;
import io.playline.core.config.KafkaTopic;
import io.playline.core.config.KafkaTopicConfig;
import io.playline.core.store.RetriableStoreException;
import io.playline.time.Time;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure Playline's topics exist as configured before a role uses them: a missing topic is
 * created with its partitions and replication factor; an existing one is checked. A key-ordered
 * topic (the history topic) with another partition count is refused with a {@link
 * ConfigException} that names the topic, both counts and the safe way to change them, because
 * moving keys between partitions could reorder one user's changes. Fewer replicas than configured
 * is logged as a warning. When two processes create a topic at once, the loser checks the
 * winner's topic. {@link #ensure} returns once the brokers' metadata shows every topic.
 *
 * <p>{@link #ensure} blocks for at most the given timeout and fails with a {@link
 * RetriableStoreException} when the brokers do not answer in time (callers that run in the
 * background retry it), and with a {@link ConfigException} for what retrying cannot fix: the
 * mismatch above, or a replication factor the cluster cannot give. Stateless and thread-safe; each
 * call uses an admin client of its own.
 */
public final class KafkaTopics {
  private static final Logger log = LoggerFactory.getLogger(KafkaTopics.class);
  private static final Duration RECHECK_PAUSE = Duration.ofMillis(100);

  private final Admin admin;
  private final String bootstrapServers;
  private final Duration timeout;
  private final Time time;
  private final long deadlineNanos;

  private KafkaTopics(Admin admin, String bootstrapServers, Duration timeout, Time time) {
    this.admin = admin;
    this.bootstrapServers = bootstrapServers;
    this.timeout = timeout;
    this.time = time;
    this.deadlineNanos = time.nanoTime() + timeout.toNanos();
  }

  /**
   * Ensures each of {@code topics} exists on the Kafka at {@code bootstrapServers} (an admin client
   * built with {@code clients}' pass-through) and has the expected partitions, within {@code timeout}
   * by {@code time}; returns each topic's id by name (Kafka gives a recreated topic a new id, and its
   * offsets restart).
   *
   * @throws RetriableStoreException when Kafka does not answer within {@code timeout}
   * @throws ConfigException when a key-ordered topic's partition count differs from the configured
   *     one, or the cluster cannot give the configured replication factor
   */
  public static Map<String, String> ensure(String bootstrapServers, KafkaClientConfig clients, Duration timeout,
      List<KafkaTopic> topics, Time time) {
    int timeoutMs = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
    Map<String, Object> properties = clients.build(KafkaClient.ADMIN, bootstrapServers, Map.of(
        AdminClientConfig.CLIENT_ID_CONFIG, "playline-topics",
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs));
    try (Admin admin = Admin.create(properties)) {
      KafkaTopics run = new KafkaTopics(admin, bootstrapServers, timeout, time);
      Map<String, String> ids = new LinkedHashMap<>();
      for (KafkaTopic topic : topics) {
        ids.put(topic.name(), run.ensure(topic));
      }
      return ids;
    }
  }

  /** As {@link #ensure(String, KafkaClientConfig, Duration, List, Time)} with {@code config}'s timeout. */
  public static Map<String, String> ensure(String bootstrapServers, KafkaClientConfig clients,
      KafkaTopicConfig config, List<KafkaTopic> topics, Time time) {
    return ensure(bootstrapServers, clients, config.adminTimeout(), topics, time);
  }

  /** Makes sure {@code topic} exists and fits; returns its topic id (a recreated topic gets a new one). */
  private String ensure(KafkaTopic topic) {
    boolean requested = false;
    while (true) {
      Optional<TopicDescription> existing = describe(topic);
      if (existing.isPresent()) {
        check(topic, existing.get());
        return existing.get().topicId().toString();
      }
      if (!requested) {
        create(topic);
        requested = true;
      }
      // Created here or by another process meanwhile: checked once the brokers' metadata shows it,
      // so a producer or consumer started next finds it. The pause only paces the look at the brokers.
      LockSupport.parkNanos(Math.min(RECHECK_PAUSE.toNanos(), Math.max(0, deadlineNanos - time.nanoTime())));
    }
  }

  private Optional<TopicDescription> describe(KafkaTopic topic) {
    KafkaFuture<TopicDescription> future = admin.describeTopics(List.of(topic.name()),
        new DescribeTopicsOptions().timeoutMs(remainingMs(topic, "describing"))).topicNameValues().get(topic.name());
    try {
      return Optional.of(await(future, topic, "describing"));
    } catch (UnknownTopicOrPartitionException e) {
      return Optional.empty();
    }
  }

  /** Creates {@code topic}, unless it already exists (created by another process meanwhile). */
  private void create(KafkaTopic topic) {
    NewTopic request = new NewTopic(topic.name(), Optional.of(topic.partitions()), topic.replicationFactor());
    KafkaFuture<Void> future = admin.createTopics(List.of(request),
        new CreateTopicsOptions().timeoutMs(remainingMs(topic, "creating"))).all();
    try {
      await(future, topic, "creating");
    } catch (TopicExistsException e) {
      log.debug("Kafka topic {} was created meanwhile by another process", topic.name());
      return;
    } catch (InvalidReplicationFactorException e) {
      throw new ConfigException(KafkaTopicConfig.REPLICATION_FACTOR_KEY + ": "
          + topic.replicationFactor().map(String::valueOf).orElse("the brokers' default.replication.factor")
          + " (expected: at most the number of brokers; Kafka refused to create topic " + topic.name() + ": "
          + e.getMessage() + ")");
    }
    log.info("Created Kafka topic {} with {} partitions, replication factor {}", topic.name(), topic.partitions(),
        topic.replicationFactor().map(String::valueOf).orElse("of the brokers' default"));
  }

  private void check(KafkaTopic topic, TopicDescription description) {
    int partitions = description.partitions().size();
    if (partitions != topic.partitions()) {
      if (topic.keyOrdered()) {
        throw new ConfigException(topic.partitionsKey() + ": " + topic.partitions() + " but topic " + topic.name()
            + " on " + bootstrapServers + " has " + partitions + " partitions. It is keyed by uid: changing its"
            + " partition count moves users to other partitions and can reorder one user's changes, so Playline"
            + " refuses to start. To keep the topic, set " + topic.partitionsKey() + "=" + partitions + ". To change"
            + " it safely: stop the gateways, let the jobs drain the topic (consumer lag 0), then change the"
            + " partitions (kafka-topics.sh --alter --partitions N; Kafka cannot remove partitions) and "
            + topic.partitionsKey() + " together, and start again");
      }
      log.warn("Kafka topic {} has {} partitions, {} configured ({}); using it as it is", topic.name(), partitions,
          topic.partitions(), topic.partitionsKey());
    }
    int replicas = description.partitions().stream().mapToInt(p -> p.replicas().size()).min().orElse(0);
    short wanted = topic.replicationFactor().orElse((short) 0);
    if (replicas < wanted) {
      log.warn("Kafka topic {} has partitions with {} replicas, fewer than {} = {}: losing a broker may lose "
          + "or block its records; reassign its replicas (kafka-reassign-partitions.sh)", topic.name(), replicas,
          KafkaTopicConfig.REPLICATION_FACTOR_KEY, wanted);
    }
    log.debug("Kafka topic {}: {} partitions, leaders {}", topic.name(), partitions,
        description.partitions().stream().map(TopicPartitionInfo::leader).toList());
  }

  /** Waits for {@code future} until the deadline; unwraps Kafka's failure, mapping transient ones. */
  private <T> T await(KafkaFuture<T> future, KafkaTopic topic, String doing) {
    try {
      return future.get(Math.max(1, deadlineNanos - time.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw unanswered(topic, doing, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while " + doing + " Kafka topic " + topic.name(), e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      // A broker that is still starting can answer UnsupportedVersionException for a moment.
      if (cause instanceof org.apache.kafka.common.errors.TimeoutException
          || cause instanceof org.apache.kafka.common.errors.UnsupportedVersionException
          || cause instanceof RetriableException && !(cause instanceof UnknownTopicOrPartitionException)) {
        throw unanswered(topic, doing, cause);
      }
      if (cause instanceof org.apache.kafka.common.errors.AuthenticationException refused) {
        // Not retried: a wrong password or an untrusted certificate does not heal by waiting.
        throw new ConfigException("Kafka at " + bootstrapServers + " refused the connection while " + doing
            + " topic " + topic.name() + " (" + refused.getClass().getSimpleName() + ": " + refused.getMessage()
            + "): check the kafka.common.* security settings (security.protocol, sasl.mechanism, sasl.jaas.config, "
            + "ssl.truststore.*) against the brokers' listener");
      }
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException("Kafka failed while " + doing + " topic " + topic.name(), cause);
    }
  }

  private int remainingMs(KafkaTopic topic, String doing) {
    long ms = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - time.nanoTime());
    if (ms <= 0) {
      throw unanswered(topic, doing, null);
    }
    return (int) Math.min(Integer.MAX_VALUE, ms);
  }

  private RetriableStoreException unanswered(KafkaTopic topic, String doing, @Nullable Throwable cause) {
    String message = "Kafka at " + bootstrapServers + " did not answer within " + timeout.toMillis() + " ms ("
        + KafkaTopicConfig.ADMIN_TIMEOUT_KEY + ") while " + doing + " topic " + topic.name()
        + ": are the brokers up and reachable, and do the kafka.common.* security settings match theirs?";
    return cause == null ? new RetriableStoreException(message) : new RetriableStoreException(message, cause);
  }
}
