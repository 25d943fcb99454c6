package io.playline.roles;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.playline.core.kafka.KafkaClient;
import io.playline.core.kafka.KafkaClientProperties;
import io.playline.node.Node;
import io.playline.node.admin.Readiness;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Probes Redis (PING), Kafka (describe cluster) and HBase (list namespaces) every few seconds on
 * its own thread, over the process's own connections, and reflects the answers in {@link
 * Readiness}: Redis as a required component (a heartbeat needs it: without it {@code /readyz}
 * turns 503), Kafka and HBase as reported ones (the write-back and the recovery marks ride out
 * their outages, so they never take a node out of rotation), plus whatever a role {@link #watch}es.
 * Never runs on an event loop.
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
  private final RedisClusterAsyncCommands<byte[], byte[]> redis;
  private final AdminClient kafka;
  private final Connection hbase;
  private final Map<String, BooleanSupplier> watched = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * Probes through connections the process already holds ({@code redis}, {@code hbase}: not
   * closed here) plus one Kafka admin client of its own, built with {@code kafkaClients}' pass-through.
   */
  /** A node's health: its Redis and readiness, and the Kafka and HBase it uses (the job role builds its own). */
  public static BackendHealth of(Node node, String kafkaBootstrapServers, Connection hbase) {
    return new BackendHealth(node.core().redis().shared(), kafkaBootstrapServers, node.core().config().kafkaClients(),
        hbase, node.readiness());
  }

  public BackendHealth(RedisClusterAsyncCommands<byte[], byte[]> redis, String kafkaBootstrapServers,
      KafkaClientProperties kafkaClients, Connection hbase, Readiness readiness) {
    this.readiness = readiness;
    readiness.register("redis");
    readiness.report("kafka");
    readiness.report("hbase");
    this.redis = redis;
    this.hbase = hbase;
    this.kafka = AdminClient.create(kafkaClients.build(KafkaClient.ADMIN, kafkaBootstrapServers, Map.of(
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) PROBE_TIMEOUT.toMillis(),
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) PROBE_TIMEOUT.toMillis())));
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
    probes.put("redis", () -> "PONG".equals(redis.ping().get(PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)));
    probes.put("kafka", () -> !kafka.describeCluster(
        new DescribeClusterOptions().timeoutMs((int) PROBE_TIMEOUT.toMillis()))
        .nodes().get(PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).isEmpty());
    probes.put("hbase", () -> {
      try (Admin admin = hbase.getAdmin()) {
        return admin.listNamespaceDescriptors().length > 0;
      }
    });
    watched.forEach((name, supplier) -> probes.put(name, supplier::getAsBoolean));
    probes.forEach(this::check);
    probes.forEach((name, probe) -> scheduler.scheduleWithFixedDelay(() -> check(name, probe), period.toMillis(),
        period.toMillis(), TimeUnit.MILLISECONDS));
  }

  private interface Probe {
    boolean ok() throws Exception;
  }

  private void check(String name, Probe probe) {
    boolean ok;
    try {
      ok = probe.ok();
    } catch (Exception e) {
      ok = false;
      log.warn("Backend {} is not answering: {}", name, e.toString());
    }
    readiness.set(name, ok);
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    try {
      scheduler.awaitTermination(PROBE_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    kafka.close(Duration.ofSeconds(2));
  }
}
