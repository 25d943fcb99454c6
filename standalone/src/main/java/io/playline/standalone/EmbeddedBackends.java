package io.playline.standalone;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.playline.embedded.EmbeddedHBase;
import io.playline.embedded.EmbeddedKafka;
import io.playline.embedded.EmbeddedRedis;
import io.playline.embedded.EmbeddedServer;
import io.playline.roles.StartupException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.util.ShutdownHookManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the embedded real servers standalone mode needs (skipping any backend configured as
 * external) and stops them in reverse order. Kafka and HBase start concurrently since each takes
 * seconds.
 */
final class EmbeddedBackends implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedBackends.class);

  private final List<EmbeddedServer> started;
  private final BackendEndpoints endpoints;

  private EmbeddedBackends(List<EmbeddedServer> started, BackendEndpoints endpoints) {
    this.started = started;
    this.endpoints = endpoints;
  }

  static EmbeddedBackends start(StandaloneConfig config) {
    Path data = config.dataDir();
    List<EmbeddedServer> started = new ArrayList<>();
    Set<String> embedded = new HashSet<>();
    // Hadoop adds its JVM shutdown hook when its hook manager is first used, which the HBase master
    // does while it starts: a Ctrl-C then would make that fail with a logged stack trace.
    ShutdownHookManager.get();
    try {
      // Redis first: it takes milliseconds, and failing here leaves nothing running in the background.
      String redisUri;
      if (config.externalRedisUri().isPresent()) {
        redisUri = config.externalRedisUri().get();
      } else {
        // A redis-server a killed run left on the directory is stopped first; a crash is restarted.
        EmbeddedRedis redis = EmbeddedRedis.start(
            new EmbeddedRedis.Options(data.resolve("redis"), config.embeddedRedisPort(), true));
        redis.supervise();
        started.add(redis);
        embedded.add("redis");
        redisUri = redis.redisUri();
      }
      CompletableFuture<EmbeddedKafka> kafka = config.externalKafka().isPresent()
          ? CompletableFuture.completedFuture(null)
          : CompletableFuture.supplyAsync(() -> io(() -> EmbeddedKafka.start(
              new EmbeddedKafka.Options(data.resolve("kafka"), config.embeddedKafkaPort()))));
      CompletableFuture<EmbeddedHBase> hbase = config.externalHBaseQuorum().isPresent()
          ? CompletableFuture.completedFuture(null)
          : CompletableFuture.supplyAsync(() -> io(() -> EmbeddedHBase.start(
              new EmbeddedHBase.Options(data.resolve("hbase"), config.embeddedZookeeperPort()))));
      // Join both before judging either, so a server that did start is always stopped again.
      Throwable failure = null;
      EmbeddedKafka k = null;
      EmbeddedHBase h = null;
      try {
        k = kafka.join();
      } catch (CompletionException e) {
        failure = e.getCause();
      }
      try {
        h = hbase.join();
      } catch (CompletionException e) {
        failure = failure == null ? e.getCause() : failure;
      }
      if (k != null) {
        started.add(k);
      }
      if (h != null) {
        started.add(h);
      }
      if (failure != null) {
        throw new CompletionException(failure);
      }
      String bootstrap;
      if (k != null) {
        embedded.add("kafka");
        bootstrap = k.bootstrapServers();
      } else {
        bootstrap = config.externalKafka().orElseThrow();
      }
      String quorum;
      int zkPort;
      Configuration hbaseConf;
      if (h != null) {
        embedded.add("hbase");
        quorum = h.zookeeperQuorum();
        zkPort = h.zookeeperPort();
        hbaseConf = h.clientConfiguration();
      } else {
        quorum = config.externalHBaseQuorum().orElseThrow();
        zkPort = config.hbaseZookeeperPort();
        hbaseConf = HBaseConfiguration.create();
        hbaseConf.set(HConstants.ZOOKEEPER_QUORUM, quorum);
        hbaseConf.setInt(HConstants.ZOOKEEPER_CLIENT_PORT, zkPort);
      }
      return new EmbeddedBackends(started,
          new BackendEndpoints(redisUri, bootstrap, quorum, zkPort, hbaseConf, Set.copyOf(embedded)));
    } catch (IOException | RuntimeException e) {
      stopAll(started);
      Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
      throw new StartupException("could not start the embedded servers: " + cause.getMessage(), cause);
    }
  }

  BackendEndpoints endpoints() {
    return endpoints;
  }

  /** Publishes {@code playline.embedded.redis.restarts}: how often a crashed embedded Redis was restarted. */
  void bindTo(MeterRegistry registry) {
    for (EmbeddedServer s : started) {
      if (s instanceof EmbeddedRedis redis) {
        FunctionCounter.builder("playline.embedded.redis.restarts", redis, EmbeddedRedis::restarts)
            .description("Times the embedded redis-server exited unexpectedly and was started again")
            .register(registry);
      }
    }
  }

  @Override
  public void close() {
    stopAll(started);
  }

  private static void stopAll(List<EmbeddedServer> servers) {
    for (int i = servers.size() - 1; i >= 0; i--) {
      EmbeddedServer s = servers.get(i);
      try {
        s.close();
      } catch (RuntimeException e) {
        log.warn("Stopping embedded {} failed", s.name(), e);
      }
    }
  }

  private interface IoSupplier<T> {
    T get() throws IOException;
  }

  private static <T> T io(IoSupplier<T> supplier) {
    try {
      return supplier.get();
    } catch (IOException e) {
      throw new CompletionException(e);
    }
  }
}
