package io.playline.standalone;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.playline.api.ApiServer;
import io.playline.api.config.ApiConfig;
import io.playline.core.HistoryCore;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.store.RedisConnections;
import io.playline.gateway.PlayerEdge;
import io.playline.gateway.config.GatewayConfig;
import io.playline.gateway.push.PushPlug;
import io.playline.gateway.ws.DemoPage;
import io.playline.job.PlaylineJob;
import io.playline.job.config.JobConfig;
import io.playline.node.Node;
import io.playline.node.NodeConfig;
import io.playline.node.admin.Readiness;
import io.playline.node.settings.NodeSettings;
import io.playline.roles.Addresses;
import io.playline.roles.BackendHealth;
import io.playline.roles.Demo;
import io.playline.roles.GatewayRole;
import io.playline.roles.RoleParts;
import io.playline.roles.Secrets;
import io.playline.roles.StartupException;
import io.playline.roles.endpoints.Endpoints;
import io.playline.time.Time;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.hbase.client.Connection;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Standalone mode: validates the whole config, locks the data dir, checks the ports, starts the
 * embedded real servers, then the roles, writes {@code endpoints.json} and prints a banner.
 * {@link #close()} stops everything in reverse order within {@code shutdown.timeout}; past that
 * the process halts so a hung part cannot keep it alive. Called (from a shutdown hook, say) while
 * {@link #run} is still starting, it makes the start stop at its next step, then stops what
 * started: a step in progress (the embedded servers take seconds) finishes first, and nothing is
 * interrupted, since an interrupted HBase or Kafka client logs a stack trace and may retry.
 */
public final class StandaloneLauncher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StandaloneLauncher.class);

  private final RoleParts parts = new RoleParts();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicBoolean closing = new AtomicBoolean();
  private final CountDownLatch startEnded = new CountDownLatch(1);
  private volatile boolean running;
  private volatile boolean stopRequested;
  private final Readiness readiness = new Readiness();
  private final Time time;
  private Duration shutdownTimeout = Duration.ofSeconds(60);
  private Path endpointsFile = Path.of(Endpoints.FILE_NAME);
  private @Nullable Node node;
  private @Nullable PlayerEdge edge;
  private @Nullable ApiServer api;
  private @Nullable PrometheusMeterRegistry meterRegistry;

  /** A launcher that has not started yet, whose parts read and schedule by {@code time}: {@link #run} starts it. */
  public StandaloneLauncher(Time time) {
    this.time = time;
  }

  /** A started launcher; see {@link #run}. */
  public static StandaloneLauncher start(ConfigSource config, Time time) {
    StandaloneLauncher launcher = new StandaloneLauncher(time);
    launcher.run(config);
    return launcher;
  }

  /**
   * Starts every part and returns once all are ready (or the readiness wait ran out); once only.
   * On a failure it stops what started and throws.
   *
   * @throws StoppedDuringStartException when {@link #close()} was called before the start finished
   */
  public void run(ConfigSource config) {
    running = true;
    try {
      checkNotStopped();
      doStart(config);
      startEnded.countDown();
    } catch (RuntimeException e) {
      startEnded.countDown();
      boolean stoppedFromOutside = stopRequested;
      close();
      if (stoppedFromOutside) {
        log.debug("The start stopped at its next step", e);
        throw new StoppedDuringStartException();
      }
      throw e;
    }
  }

  /** What {@link #run} throws when {@link #close()} stopped the start; the parts that started are stopped. */
  public static final class StoppedDuringStartException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StoppedDuringStartException() {
      super("stopped during start-up", null, false, false);
    }
  }

  /** Between the start's steps: a stop asked for meanwhile ends the start here. */
  private void checkNotStopped() {
    if (stopRequested) {
      throw new StoppedDuringStartException();
    }
  }

  private void doStart(ConfigSource given) {
    long t0 = time.nanoTime();
    // Standalone serves the internal API with public development keys: loopback unless told otherwise.
    boolean loopbackOnly = given.raw(NodeSettings.BIND_HOST.key()).isEmpty();
    ConfigSource config = loopbackOnly ? given.with(Map.of(NodeSettings.BIND_HOST.key(), "127.0.0.1")) : given;
    // Validate every key before starting anything.
    StandaloneConfig standalone = StandaloneConfig.from(config);
    Secrets.Resolved secret = Secrets.resolve(config, true);
    NodeConfig nodeConfig = NodeConfig.from(config);
    GatewayConfig gateway = GatewayConfig.from(config, secret.secret());
    Secrets.Resolved apiSecret = Secrets.resolveApi(config, true);
    ApiConfig access = ApiConfig.from(config, apiSecret.secret(), secret.secret());
    shutdownTimeout = standalone.shutdownTimeout();

    checkNotStopped();
    parts.add(DataDirLock.acquire(standalone.dataDir()));
    Map<String, Integer> ports = new LinkedHashMap<>();
    ports.put("ws.port", gateway.wsPort());
    ports.put("grpc.port", gateway.grpcPort());
    ports.put("admin.port", nodeConfig.adminPort());
    PortCheck.ensureFree(nodeConfig.bindHost(), ports);
    PortCheck.ensureFree(access.bindHost(), Map.of("api.port", access.port()));

    log.info("Starting embedded servers under {}", standalone.dataDir());
    EmbeddedBackends backends = parts.add(EmbeddedBackends.start(standalone));
    checkNotStopped();
    PrometheusMeterRegistry registry = parts.meters();
    this.meterRegistry = registry;
    backends.bindTo(registry);
    BackendEndpoints endpoints = backends.endpoints();
    Connection hbase = parts.hbase(endpoints.hbaseConfiguration());
    checkNotStopped();

    // Every role in one process: one node with the internal API and the player edge on it, and the job.
    // The API attaches first so that the edge, attached last, is closed first: players drain while it serves.
    DemoPage demo = Demo.page(config, true, secret.secret(), secret.dev(), time);
    PushPlug push = new PushPlug(nodeConfig.nodeId(), gateway.push(), true);
    Node node = parts.add(Node.builder(nodeConfig).registry(registry).readiness(readiness).time(time).applied(push)
        .core(Node.historyCore(config, endpoints.redisUri(), endpoints.kafkaBootstrapServers(), nodeConfig.nodeId(),
            endpoints.hbaseConfiguration()))
        .start());
    this.node = node;
    checkNotStopped();
    ApiServer api = ApiServer.attachBesidePlayers(node, access);
    this.api = api;
    PlayerEdge edge = PlayerEdge.attach(node, gateway, push, demo);
    this.edge = edge;
    // The job writes HBase all along, so its connection is open anyway: probe through it.
    BackendHealth health = parts.add(BackendHealth.of(node, endpoints.kafkaBootstrapServers(),
        BackendHealth.hbase(hbase)));
    checkNotStopped();
    CoreConfig core = node.core().config();
    JobConfig jobConfig = JobConfig.from(config, core);
    RedisConnections jobRedis = parts.add(PlaylineJob.connectRedis(jobConfig, endpoints.redisUri(), core.redisCluster(),
        core.redisTopology(), time));
    PlaylineJob job = parts.add(new PlaylineJob(jobConfig, core, jobRedis, hbase, endpoints.kafkaBootstrapServers(),
        registry, time));
    checkNotStopped();
    job.start();
    // Players and backends need Redis only: the job (and Kafka, HBase) are reported, not required.
    health.watch("job", job::readiness, false);
    health.start(BackendHealth.PERIOD);

    Map<String, String> own = new LinkedHashMap<>(Addresses.of(node, GatewayRole.playerAddresses(node, edge), api));
    if (demo != null) {
      own.put("demo", Demo.url(own.get("websocket")));
    }
    awaitReady(Duration.ofSeconds(60));
    // Written last: tools (and tests) take its presence as "up".
    endpointsFile = writeEndpoints(standalone.dataDir().resolve(Endpoints.FILE_NAME), backends.endpoints(), own,
        time);
    log.info("{}", StandaloneBanner.text(standalone, backends.endpoints(), own, secret.dev(), apiSecret.dev(), demo,
        Duration.ofNanos(time.nanoTime() - t0), given, readiness.isReady()));
  }

  /** Writes {@code target}: the backends' addresses (which are embedded) and Playline's own, as of {@code time}. */
  private static Path writeEndpoints(Path target, BackendEndpoints b, Map<String, String> own, Time time) {
    Endpoints endpoints = new Endpoints(ProcessHandle.current().pid(), null, time.instant().toString(), null,
        new Endpoints.Redis(b.redisUri(), null, b.embedded().contains("redis"), null, null),
        new Endpoints.Kafka(b.kafkaBootstrapServers(), b.embedded().contains("kafka")),
        new Endpoints.HBase(b.hbaseZookeeperQuorum(), b.hbaseZookeeperPort(), b.embedded().contains("hbase")),
        Endpoints.Serves.of(own), null);
    try {
      endpoints.write(target);
    } catch (IOException e) {
      throw new StartupException("cannot write " + target + ": " + e.getMessage(), e);
    }
    return target;
  }

  /**
   * Waits (bounded) until every component, reported ones included, is ready: e.g. the job's
   * consumer got its partitions and created the table, so "up" means all of it runs.
   */
  private void awaitReady(Duration limit) {
    // The limit passes by the launcher's time; the sleep only paces the look at the readiness.
    long deadline = time.nanoTime() + limit.toNanos();
    while (!readiness.allReady() && time.nanoTime() - deadline < 0) {
      checkNotStopped();
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    checkNotStopped();
  }

  /** Blocks until {@link #close()} has finished. */
  public void awaitStopped() throws InterruptedException {
    stopped.await();
  }

  Readiness readiness() {
    return readiness;
  }

  /** The running node (its core, meters and admin address), for tests. */
  Node node() {
    Node n = node;
    if (n == null) {
      throw new IllegalStateException("not started");
    }
    return n;
  }

  /** The running player edge (its addresses and push), for tests. */
  PlayerEdge edge() {
    PlayerEdge e = edge;
    if (e == null) {
      throw new IllegalStateException("not started");
    }
    return e;
  }

  /** The running internal API, for tests. */
  ApiServer api() {
    ApiServer a = api;
    if (a == null) {
      throw new IllegalStateException("not started");
    }
    return a;
  }

  /** The node's history-core (standalone's core is always the production one), for tests. */
  HistoryCore core() {
    return node().historyCore();
  }

  /** The process's meters, for tests. */
  PrometheusMeterRegistry registry() {
    PrometheusMeterRegistry r = meterRegistry;
    if (r == null) {
      throw new IllegalStateException("not started");
    }
    return r;
  }

  /**
   * Stops every part in reverse start order; during {@link #run}, first makes the start stop at its
   * next step and waits for it. Idempotent: a second call returns once the first has stopped
   * everything. Halts the JVM if the stop overruns {@code shutdown.timeout}.
   */
  @Override
  public void close() {
    stopRequested = true;
    if (!closing.compareAndSet(false, true)) {
      // Another thread stops it (a signal's, the start's own): return once that is done.
      try {
        stopped.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return;
    }
    long t0 = time.nanoTime();
    Semaphore done = new Semaphore(0);
    Thread watchdog = new Thread(() -> {
      try {
        // shutdown.timeout passes on the launcher's time, as every other deadline of its parts.
        if (!time.tryAcquire(done, shutdownTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
          log.error("Shutdown took longer than {}; halting", shutdownTimeout);
          Runtime.getRuntime().halt(1);
        }
      } catch (InterruptedException e) {
        // The JVM is going some other way.
      }
    }, "playline-shutdown-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
    if (running && startEnded.getCount() > 0) {
      log.info("Stopping the start-up at its next step");
      try {
        startEnded.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    log.info("Shutting down");
    readiness.set(PlayerEdge.READINESS_COMPONENT, false);
    try {
      Files.deleteIfExists(endpointsFile);
    } catch (IOException | RuntimeException e) {
      log.debug("Could not remove {}: {}", endpointsFile, e.toString());
    }
    try {
      parts.close();
    } finally {
      done.release(); // the watchdog halts the JVM only when closing hangs, not when it failed
    }
    log.info("Stopped in {} ms", Duration.ofNanos(time.nanoTime() - t0).toMillis());
    stopped.countDown();
  }
}
