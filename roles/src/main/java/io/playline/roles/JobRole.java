package io.playline.roles;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.kafka.KafkaTopics;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RetriableStoreException;
import io.playline.job.PlaylineJob;
import io.playline.job.config.JobConfig;
import io.playline.node.admin.AdminConfig;
import io.playline.node.admin.AdminHttpServer;
import io.playline.node.admin.Readiness;
import io.playline.node.loops.EventLoops;
import io.playline.node.settings.NodeSettings;
import io.playline.roles.RoleBackends.Need;
import io.playline.time.Time;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.client.Connection;

/**
 * {@code bin/playline job}: consumes the write-back topic into HBase and sweeps recovery marks,
 * against external Redis (or Redis Cluster), Kafka and HBase; serves the admin port ({@code
 * /metrics}, {@code /readyz} with the job's and each backend's state). Job instances share one
 * Kafka consumer group ({@code job.group.id}) and so split the partitions. Refuses to start
 * without any backend address. Thread-safe to close from a shutdown hook.
 */
public final class JobRole implements Role {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(JobRole.class);
  public static final List<Need> NEEDS = List.of(Need.REDIS, Need.KAFKA, Need.HBASE);

  private final RoleParts parts = new RoleParts();
  private final PlaylineJob job;
  private final AdminHttpServer admin;
  private final PrometheusMeterRegistry registry;

  private JobRole(ConfigSource source, RoleBackends backends, Time time) {
    try {
      CoreConfig core = CoreConfig.from(source);
      JobConfig jobConfig = JobConfig.from(source, core);
      AdminConfig adminConfig = AdminConfig.from(source);
      int adminPort = NodeSettings.ADMIN_PORT.read(source);
      // A history topic with another partition count refuses the process here, as it does a gateway's:
      // a job that started anyway would sit unready forever. Kafka down is retried in the background.
      ensureHistoryTopic(core, backends.kafkaBootstrapServers(), time);
      registry = parts.meters();
      Readiness readiness = new Readiness();
      EventLoops loops = parts.add(EventLoops.create(1));
      RedisConnections redis = parts.add(PlaylineJob.connectRedis(jobConfig, backends.redisUri(),
          backends.redisCluster(), core.redisTopology(), time));
      Connection hbase = parts.hbase(backends.hbaseConfiguration());
      BackendHealth health = parts.add(new BackendHealth(redis.shared(), backends.kafkaBootstrapServers(),
          core.kafkaClients(), BackendHealth.hbase(hbase), readiness, time));
      job = parts.add(new PlaylineJob(jobConfig, core, redis, hbase, backends.kafkaBootstrapServers(), registry,
          time));
      job.start();
      health.watch("job", job::readiness, true);
      health.start(BackendHealth.PERIOD);
      admin = parts.add(AdminHttpServer.start(loops, adminConfig, adminPort, registry, readiness, time));
    } catch (InterruptedException e) {
      parts.close();
      Thread.currentThread().interrupt();
      throw new StartupException("interrupted while starting the job role", e);
    } catch (RuntimeException e) {
      parts.close();
      throw e;
    }
  }

  private static void ensureHistoryTopic(CoreConfig core, String bootstrap, Time time) {
    try {
      KafkaTopics.ensure(bootstrap, core.kafkaClients(), core.kafkaTopics(), List.of(core.kafkaTopics().history()),
          time);
    } catch (RetriableStoreException e) {
      log.warn("Kafka did not answer the topic check ({}); the job retries it in the background", e.getMessage());
    }
  }

  /** Connects and starts consuming on {@code time} (in the background: readiness says when it persists). */
  public static JobRole start(ConfigSource config, RoleBackends backends, Time time) {
    return new JobRole(config, backends, time);
  }

  public PlaylineJob job() {
    return job;
  }

  /** The process's meters, for tests. */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  @Override
  public Map<String, String> addresses() {
    Map<String, String> own = new LinkedHashMap<>();
    own.put("admin", "http://127.0.0.1:" + admin.address().getPort());
    return own;
  }

  @Override
  public void close() {
    parts.close();
  }
}
