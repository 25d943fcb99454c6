package io.playline.standalone;

import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.playline.core.HistoryCore;
import io.playline.core.config.ConfigSource;
import io.playline.core.store.RedisKeys;
import io.playline.gateway.session.RedisSessionStore;
import io.playline.job.JobConfig;
import io.playline.job.PlaylineJob;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.jspecify.annotations.Nullable;
import io.playline.gateway.EventLoops;
import io.playline.gateway.GatewayConfig;
import io.playline.gateway.GatewayServer;
import io.playline.gateway.admin.Readiness;
import io.playline.gateway.session.JwtAuthenticator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Standalone mode: validates the whole config, locks the data dir, checks the ports, starts the
 * embedded real servers, then the roles, writes {@code endpoints.json} and prints a banner.
 * {@link #close()} stops everything in reverse order within {@code shutdown.timeout}; past that
 * the process halts so a hung part cannot keep it alive.
 */
final class StandaloneLauncher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StandaloneLauncher.class);

  private final Deque<AutoCloseable> toClose = new ArrayDeque<>();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicBoolean closing = new AtomicBoolean();
  private final Readiness readiness = new Readiness();
  private Duration shutdownTimeout = Duration.ofSeconds(60);
  private Path endpointsFile = Path.of("endpoints.json");
  private @Nullable GatewayServer gatewayServer;
  private @Nullable HistoryCore historyCore;
  private @Nullable PrometheusMeterRegistry meterRegistry;

  private StandaloneLauncher() {}

  static StandaloneLauncher start(ConfigSource config) {
    StandaloneLauncher launcher = new StandaloneLauncher();
    try {
      launcher.doStart(config);
      return launcher;
    } catch (RuntimeException e) {
      launcher.close();
      throw e;
    }
  }

  private void doStart(ConfigSource config) {
    long t0 = System.nanoTime();
    // Validate every key before starting anything.
    StandaloneConfig standalone = StandaloneConfig.from(config);
    Secrets.Resolved secret = Secrets.resolve(config, true);
    GatewayConfig gateway = GatewayConfig.from(config, secret.secret());
    shutdownTimeout = standalone.shutdownTimeout();

    toClose.push(DataDirLock.acquire(standalone.dataDir()));
    Map<String, Integer> ports = new LinkedHashMap<>();
    ports.put("ws.port", gateway.wsPort());
    ports.put("grpc.port", gateway.grpcPort());
    ports.put("api.port", gateway.apiPort());
    ports.put("admin.port", gateway.adminPort());
    PortCheck.ensureFree(gateway.bindHost(), ports);

    log.info("Starting embedded servers under {}", standalone.dataDir());
    EmbeddedBackends backends = EmbeddedBackends.start(standalone);
    toClose.push(backends);

    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    toClose.push(registry::close);
    this.meterRegistry = registry;
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    toClose.push(gc);

    BackendEndpoints endpoints = backends.endpoints();
    Connection hbase;
    try {
      hbase = ConnectionFactory.createConnection(endpoints.hbaseConfiguration());
      toClose.push(hbase);
    } catch (IOException e) {
      throw new StartupException("cannot connect to HBase: " + e.getMessage(), e);
    }

    // The gateway's loops outlive the Redis client that may share one of them: created first, closed last.
    EventLoops loops = EventLoops.create(gateway.ioThreads());
    toClose.push(loops);
    HistoryCore core = HistoryCore.start(config, endpoints.redisUri(), endpoints.kafkaBootstrapServers(),
        gateway.nodeId(), registry, loops.redisLoop(gateway));
    toClose.push(core);
    this.historyCore = core;
    BackendHealth health = new BackendHealth(core.redis().shared(), endpoints.kafkaBootstrapServers(), hbase, readiness);
    toClose.push(health);

    PlaylineJob job = new PlaylineJob(JobConfig.from(config, core.config()), core.config(), core.redis(), hbase,
        endpoints.kafkaBootstrapServers(), registry);
    job.start();
    toClose.push(job);
    health.watch("job", job::readiness);
    health.start(Duration.ofSeconds(5));

    GatewayServer server = GatewayServer.start(gateway, new GatewayServer.Wiring(core.config(), registry, readiness,
        new JwtAuthenticator(secret.secret(), gateway.authClockSkew(), Clock.systemUTC()),
        new RedisSessionStore(core.redis().shared(), new RedisKeys(core.config().redisKeyPrefix()),
            gateway.sessionTtl(), gateway.nodeId()),
        core.writer(), core.firstToday(), core.redis(), core.attachHBase(hbase)), loops);
    toClose.push(server);
    this.gatewayServer = server;

    Map<String, String> own = new LinkedHashMap<>();
    own.put("websocket", "ws://127.0.0.1:" + server.wsAddress().getPort() + GatewayConfig.WS_PATH);
    own.put("grpc", "127.0.0.1:" + server.grpcAddress().getPort());
    own.put("api", "127.0.0.1:" + server.apiAddress().getPort());
    own.put("admin", "http://127.0.0.1:" + server.adminAddress().getPort());
    endpointsFile = EndpointsFile.write(standalone.dataDir(), backends.endpoints(), own);
    awaitReady(Duration.ofSeconds(60));
    banner(standalone, backends.endpoints(), own, secret.dev(), Duration.ofNanos(System.nanoTime() - t0));
  }

  /** Waits (bounded) until every component reports ready, e.g. the job's consumer got its partitions. */
  private void awaitReady(Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!readiness.isReady() && System.nanoTime() < deadline) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void banner(StandaloneConfig config, BackendEndpoints backends, Map<String, String> own, boolean devSecret,
      Duration took) {
    StringBuilder b = new StringBuilder("\n");
    b.append("  Playline standalone is up in ").append(took.toMillis()).append(" ms (")
        .append(readiness.isReady() ? "ready" : "NOT ready: see /readyz").append(")\n");
    own.forEach((k, v) -> b.append(String.format("    %-10s %s%n", k, v)));
    b.append(String.format("    %-10s %s%n", "redis", backends.redisUri()));
    b.append(String.format("    %-10s %s%n", "kafka", backends.kafkaBootstrapServers()));
    b.append(String.format("    %-10s zookeeper %s:%d%n", "hbase", backends.hbaseZookeeperQuorum(),
        backends.hbaseZookeeperPort()));
    b.append("    data dir   ").append(config.dataDir()).append(" (endpoints in endpoints.json)\n");
    if (devSecret) {
      b.append("  WARNING: PLAYLINE_AUTH_SECRET is not set; tokens are signed with the public development secret.\n");
    }
    b.append("  Get a player token: bin/playline token --uid 42\n");
    b.append("  Stop with Ctrl-C (or SIGTERM).\n");
    log.info("{}", b);
  }

  /** Blocks until {@link #close()} has finished. */
  void awaitStopped() throws InterruptedException {
    stopped.await();
  }

  Readiness readiness() {
    return readiness;
  }

  /** The running history-core, for tests. */
  HistoryCore core() {
    HistoryCore c = historyCore;
    if (c == null) {
      throw new IllegalStateException("not started");
    }
    return c;
  }

  /** The process's meters, for tests. */
  PrometheusMeterRegistry registry() {
    PrometheusMeterRegistry r = meterRegistry;
    if (r == null) {
      throw new IllegalStateException("not started");
    }
    return r;
  }

  /** The running gateway (its bound addresses), for tests. */
  GatewayServer gateway() {
    GatewayServer g = gatewayServer;
    if (g == null) {
      throw new IllegalStateException("not started");
    }
    return g;
  }

  /** Stops every part in reverse start order; idempotent; halts the JVM if it overruns the timeout. */
  @Override
  public void close() {
    if (!closing.compareAndSet(false, true)) {
      return;
    }
    long t0 = System.nanoTime();
    Thread watchdog = new Thread(() -> {
      try {
        Thread.sleep(shutdownTimeout.toMillis());
        log.error("Shutdown took longer than {}; halting", shutdownTimeout);
        Runtime.getRuntime().halt(1);
      } catch (InterruptedException e) {
        // Shutdown finished in time.
      }
    }, "playline-shutdown-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
    log.info("Shutting down");
    readiness.set("gateway", false);
    try {
      Files.deleteIfExists(endpointsFile);
    } catch (IOException | RuntimeException e) {
      log.debug("Could not remove {}: {}", endpointsFile, e.toString());
    }
    while (!toClose.isEmpty()) {
      AutoCloseable part = toClose.pop();
      try {
        part.close();
      } catch (Exception e) {
        log.warn("Stopping {} failed", part, e);
      }
    }
    watchdog.interrupt();
    log.info("Stopped in {} ms", Duration.ofNanos(System.nanoTime() - t0).toMillis());
    stopped.countDown();
  }
}
