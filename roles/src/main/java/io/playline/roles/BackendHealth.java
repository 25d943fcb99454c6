package io.playline.roles;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.playline.core.config.KafkaClient;
import io.playline.core.config.KafkaClientConfig;
import io.playline.core.store.HBaseClient;
import io.playline.node.Node;
import io.playline.node.admin.Readiness;
import io.playline.time.FixedDelay;
import io.playline.time.Time;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Probes Redis (PING), Kafka (describe cluster) and HBase (list namespaces) every few seconds on
 * its own thread, over the process's own connections, and reflects the answers in {@link
 * Readiness}: Redis as a required component (a heartbeat needs it: without it {@code /readyz}
 * turns 503), Kafka and HBase as reported ones (the write-back and the recovery marks ride out
 * their outages, so they never take a node out of rotation), plus whatever a role {@link #watch}es.
 * HBase is probed through a connection the process holds open ({@link #hbase(Connection)}, the
 * job's) or through the read client without opening it ({@link #hbase(HBaseClient)}, a gateway's or
 * api's). Never runs on an event loop.
 */
public final class BackendHealth implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BackendHealth.class);
  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(3);
  /** How often the roles probe. */
  public static final Duration PERIOD = Duration.ofSeconds(5);

  // One thread per probe: an HBase client retrying against a dead master for minutes must not hold
  // back the Redis probe that readiness depends on.
  private final ScheduledExecutorService scheduler =
      Executors.newScheduledThreadPool(4, r -> {
        Thread t = new Thread(r, "playline-backend-health");
        t.setDaemon(true);
        return t;
      });
  private final Readiness readiness;
  private final Time time;
  private final RedisClusterAsyncCommands<byte[], byte[]> redis;
  private final AdminClient kafka;
  private final Probe hbase;
  private final Map<String, BooleanSupplier> watched = new java.util.concurrent.ConcurrentHashMap<>();
  private volatile boolean closed;

  /** What {@code /readyz} says of HBase while the read client has not been needed. */
  static final String HBASE_NOT_STARTED = "client not started: no request has needed HBase yet";

  /**
   * A serving node's health: its Redis and readiness, the Kafka it uses, and HBase through its read
   * client, which probing never opens (the job role builds its own).
   */
  public static BackendHealth of(Node node, String kafkaBootstrapServers) {
    return of(node, kafkaBootstrapServers, hbase(node.historyCore().hbase()));
  }

  /** As {@link #of(Node, String)}, probing HBase with {@code hbase}. */
  public static BackendHealth of(Node node, String kafkaBootstrapServers, Probe hbase) {
    return new BackendHealth(node.core().redis().shared(), kafkaBootstrapServers, node.core().config().kafkaClients(),
        hbase, node.readiness(), node.time());
  }

  /**
   * Probes through connections the process already holds ({@code redis}, and {@code hbase}'s: not
   * closed here) plus one Kafka admin client of its own, built with {@code kafkaClients}' pass-through;
   * probes every period by {@code time}.
   */
  public BackendHealth(RedisClusterAsyncCommands<byte[], byte[]> redis, String kafkaBootstrapServers,
      KafkaClientConfig kafkaClients, Probe hbase, Readiness readiness, Time time) {
    this.readiness = readiness;
    this.time = time;
    readiness.register("redis");
    readiness.report("kafka");
    readiness.report("hbase");
    this.redis = redis;
    this.hbase = hbase;
    this.kafka = AdminClient.create(kafkaClients.build(KafkaClient.ADMIN, kafkaBootstrapServers, Map.of(
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) PROBE_TIMEOUT.toMillis(),
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) PROBE_TIMEOUT.toMillis())));
  }

  /** What a probe found: ready or not, and what {@code /readyz} shows beside it (null: nothing). */
  public record Answer(boolean ready, @Nullable String detail) {
    static Answer of(boolean ready) {
      return new Answer(ready, null);
    }
  }

  /** One backend's check; runs on the probing thread and may block up to its timeout. */
  @FunctionalInterface
  public interface Probe {
    Answer check() throws Exception;
  }

  /** HBase through {@code connection}, which the process holds open anyway (list namespaces). */
  public static Probe hbase(Connection connection) {
    return () -> {
      try (Admin admin = connection.getAdmin()) {
        return Answer.of(admin.listNamespaceDescriptors().length > 0);
      }
    };
  }

  /**
   * HBase through the read client, never opening it: ready while no request has needed HBase (the
   * quiet node runs no HBase client to probe), then the probe of the open connection, or why it is
   * not open.
   */
  public static Probe hbase(HBaseClient client) {
    return () -> switch (client.state()) {
      case IDLE -> new Answer(true, HBASE_NOT_STARTED);
      case CONNECTING -> new Answer(false, "client connecting");
      case FAILED -> new Answer(false, "client failed to connect; the next request that needs HBase retries");
      case CLOSED -> new Answer(false, "client closed");
      case RUNNING -> {
        AsyncConnection connection = client.ifOpen();
        yield Answer.of(connection != null && !connection.getAdmin().listNamespaceDescriptors()
            .get(PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).isEmpty());
      }
    };
  }

  /**
   * Also shows {@code component} as ready while {@code check} answers true (checked with the
   * probes); {@code required}: whether it gates readiness.
   */
  public void watch(String component, BooleanSupplier check, boolean required) {
    if (required) {
      readiness.register(component);
    } else {
      readiness.report(component);
    }
    watched.put(component, check);
  }

  /**
   * Probes once now (so start-up reports the truth) and then every {@code period}, each backend on
   * its own schedule, so one slow probe delays only its own component.
   */
  public void start(Duration period) {
    Map<String, Probe> probes = new LinkedHashMap<>();
    probes.put("redis", () -> Answer.of(
        "PONG".equals(redis.ping().get(PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))));
    probes.put("kafka", () -> Answer.of(!kafka.describeCluster(
        new DescribeClusterOptions().timeoutMs((int) PROBE_TIMEOUT.toMillis()))
        .nodes().get(PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).isEmpty()));
    probes.put("hbase", hbase);
    watched.forEach((name, supplier) -> probes.put(name, () -> Answer.of(supplier.getAsBoolean())));
    probes.forEach(this::check);
    probes.forEach((name, probe) -> FixedDelay.start(time, scheduler, () -> check(name, probe), period.toMillis(),
        period.toMillis(), TimeUnit.MILLISECONDS));
  }

  private void check(String name, Probe probe) {
    Answer answer;
    try {
      answer = probe.check();
    } catch (InterruptedException e) {
      // Closing stops a probe in flight: the node is stopping, not its backend.
      Thread.currentThread().interrupt();
      return;
    } catch (Exception e) {
      if (closed) {
        return; // a probe that failed because the process is closing its clients says nothing of the backend
      }
      answer = Answer.of(false);
      log.warn("Backend {} is not answering: {}", name, e.toString());
    }
    readiness.set(name, answer.ready(), answer.detail());
  }

  @Override
  public void close() {
    closed = true;
    scheduler.shutdownNow();
    try {
      scheduler.awaitTermination(PROBE_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    kafka.close(Duration.ofSeconds(2));
  }
}
