package io.playline.topology;

import io.playline.embedded.EmbeddedRedisCluster;
import io.playline.embedded.HBaseProcess;
import io.playline.embedded.KafkaClusterProcesses;
import io.playline.embedded.LeftoverRedis;
import io.playline.roles.endpoints.Endpoints;
import io.playline.time.Time;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The production topology on one machine, every part a real process on loopback: a Redis Cluster
 * ({@code redis-server --cluster-enabled}, masters with replicas), a Kafka cluster of KRaft
 * brokers, HBase as its own process, then job instances, gateway nodes and the api, each started as
 * {@code bin/playline job|gateway|api --backends FILE} starts it. Writes {@code backends.json} (what
 * the roles are pointed at) and {@code endpoints.json} (every process and address) into its
 * directory. {@link #close()} stops the roles (gateways first, so they drain and flush), then HBase,
 * Kafka and Redis. One controlling thread.
 */
public final class LocalTopology implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LocalTopology.class);

  /**
   * What to start.
   *
   * @param dir where every process keeps its data, logs and endpoints files
   * @param classpath the classpath of the role processes (the built launcher and its dependencies)
   * @param gateways gateway nodes
   * @param apis api processes
   * @param jobs job instances
   * @param redisMasters Redis Cluster masters
   * @param redisReplicas replicas per master
   * @param kafkaBrokers KRaft brokers (each also a controller)
   * @param secret the player token secret of the gateways ({@code PLAYLINE_AUTH_SECRET})
   * @param apiSecret the key of the api processes' service tokens ({@code PLAYLINE_API_SECRET})
   * @param settings {@code --set} values every role gets (timings, partitions, ...)
   * @param roleHeap JVM heap flags of each role process
   */
  public record Options(Path dir, String classpath, int gateways, int apis, int jobs, int redisMasters,
      int redisReplicas, int kafkaBrokers, String secret, String apiSecret, Map<String, String> settings,
      String roleHeap) {
    public Options {
      settings = Map.copyOf(settings);
      check(gateways >= 1, "gateways", gateways, ">= 1");
      check(apis >= 0, "apis", apis, ">= 0");
      check(jobs >= 1, "jobs", jobs, ">= 1");
      check(redisMasters >= 3, "redisMasters", redisMasters, ">= 3 (Redis Cluster's minimum)");
      check(redisReplicas >= 0, "redisReplicas", redisReplicas, ">= 0");
      check(kafkaBrokers >= 1, "kafkaBrokers", kafkaBrokers, ">= 1");
    }

    private static void check(boolean ok, String name, int value, String expected) {
      if (!ok) {
        throw new IllegalArgumentException(name + ": " + value + " (expected: " + expected + ")");
      }
    }

    /** The deployment the README describes: 3+3 Redis, 3 brokers, HBase, 2 gateways, 1 api, 2 jobs. */
    public static Options standard(Path dir, String classpath, String secret, String apiSecret,
        Map<String, String> settings) {
      return new Options(dir, classpath, 2, 1, 2, 3, 1, 3, secret, apiSecret, settings,
          "-Xms64m -Xmx512m -XX:+UseParallelGC");
    }
  }

  private static final Duration ROLE_START = Duration.ofMinutes(3);

  private final Options options;
  private final List<AutoCloseable> backends = new ArrayList<>();
  private final List<RoleProcess> jobs = new ArrayList<>();
  private final List<RoleProcess> gateways = new ArrayList<>();
  private final List<RoleProcess> apis = new ArrayList<>();
  private EmbeddedRedisCluster redis;
  private KafkaClusterProcesses kafka;
  private HBaseProcess hbase;
  private Path backendsFile;

  private LocalTopology(Options options) {
    this.options = options;
  }

  /** Starts everything and waits until every process serves; on failure stops what had started. */
  public static LocalTopology start(Options options) throws IOException {
    LocalTopology t = new LocalTopology(options);
    try {
      t.startAll();
      return t;
    } catch (IOException | RuntimeException e) {
      t.close();
      throw e;
    }
  }

  private void startAll() throws IOException {
    long t0 = Time.SYSTEM.nanoTime();
    Files.createDirectories(options.dir());
    LeftoverRedis.stopUnder(options.dir());
    // Kafka and HBase are JVMs that take seconds to start: start them side by side with Redis.
    CompletableFuture<KafkaClusterProcesses> k = CompletableFuture.supplyAsync(() -> io(() ->
        KafkaClusterProcesses.start(new KafkaClusterProcesses.Options(options.dir().resolve("kafka"),
            options.kafkaBrokers(), options.classpath(), 384, List.of()))));
    CompletableFuture<HBaseProcess> h = CompletableFuture.supplyAsync(() -> io(() ->
        HBaseProcess.start(new HBaseProcess.Options(options.dir().resolve("hbase"), options.classpath(), 512,
            List.of()))));
    IOException failure = null;
    try {
      redis = EmbeddedRedisCluster.start(new EmbeddedRedisCluster.Options(options.dir().resolve("redis"),
          options.redisMasters(), options.redisReplicas(), Duration.ofMillis(2000)));
      backends.add(redis);
    } catch (IOException | RuntimeException e) {
      failure = asIo(e);
    }
    // Whatever happened to Redis, wait for both JVM servers, so every one that started is closed.
    for (CompletableFuture<? extends AutoCloseable> f : List.of(k, h)) {
      try {
        backends.add(f.join());
      } catch (CompletionException e) {
        IOException cause = asIo(e.getCause());
        if (failure == null) {
          failure = cause;
        } else {
          failure.addSuppressed(cause);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
    kafka = k.join();
    hbase = h.join();
    backendsFile = writeBackends();
    log.info("Backends up in {} s: redis {} ({} nodes), kafka {}, hbase zookeeper 127.0.0.1:{}",
        Duration.ofNanos(Time.SYSTEM.nanoTime() - t0).toSeconds(), redis.seedUri(), redis.nodes().size(),
        kafka.bootstrapServers(), hbase.zookeeperPort());
    for (int i = 1; i <= options.jobs(); i++) {
      jobs.add(role("job", "job-" + i, Map.of("admin.port", "0")));
    }
    for (int i = 1; i <= options.gateways(); i++) {
      gateways.add(role("gateway", "gw-" + i, Map.of("ws.port", "0", "grpc.port", "0", "admin.port", "0")));
    }
    for (int i = 1; i <= options.apis(); i++) {
      apis.add(role("api", "api-" + i, Map.of("api.port", "0", "admin.port", "0")));
    }
    writeEndpoints();
    log.info("Topology up in {} s", Duration.ofNanos(Time.SYSTEM.nanoTime() - t0).toSeconds());
  }

  private RoleProcess role(String role, String name, Map<String, String> ports) throws IOException {
    Map<String, String> settings = new LinkedHashMap<>(ports);
    settings.put("bind.host", "127.0.0.1");
    settings.putAll(options.settings());
    return RoleProcess.start(role, name, options.dir().resolve("roles"), backendsFile, settings, options.classpath(),
        options.roleHeap(), Map.of("PLAYLINE_AUTH_SECRET", options.secret(), "PLAYLINE_API_SECRET",
            options.apiSecret()), ROLE_START);
  }

  private Path writeBackends() throws IOException {
    Path file = options.dir().resolve("backends.json");
    new Endpoints(null, null, null, null, Endpoints.Redis.of(redis.seedUri(), true), kafkaEntry(), hbaseEntry(), null,
        null).write(file);
    return file;
  }

  private void writeEndpoints() throws IOException {
    List<Endpoints.RedisNode> nodes = new ArrayList<>();
    for (EmbeddedRedisCluster.Node n : redis.nodes()) {
      nodes.add(new Endpoints.RedisNode(n.uri()));
    }
    List<Endpoints.RoleEntry> roles = new ArrayList<>();
    for (RoleProcess p : allRoles()) {
      roles.add(Endpoints.RoleEntry.of(p.name(), p.role(), p.pid(), p.serves()));
    }
    new Endpoints(null, null, null, backendsFile.toString(),
        new Endpoints.Redis(null, null, null, redis.seedUri(), nodes), kafkaEntry(), hbaseEntry(), null, roles)
        .write(options.dir().resolve(Endpoints.FILE_NAME));
  }

  private Endpoints.Kafka kafkaEntry() {
    return new Endpoints.Kafka(kafka.bootstrapServers(), null);
  }

  private Endpoints.HBase hbaseEntry() {
    return new Endpoints.HBase(hbase.zookeeperQuorum(), hbase.zookeeperPort(), null);
  }

  private List<RoleProcess> allRoles() {
    List<RoleProcess> all = new ArrayList<>(jobs);
    all.addAll(gateways);
    all.addAll(apis);
    return all;
  }

  public Path backendsFile() {
    return backendsFile;
  }

  public EmbeddedRedisCluster redis() {
    return redis;
  }

  public KafkaClusterProcesses kafka() {
    return kafka;
  }

  public HBaseProcess hbase() {
    return hbase;
  }

  public List<RoleProcess> gateways() {
    return Collections.unmodifiableList(gateways);
  }

  public List<RoleProcess> apis() {
    return Collections.unmodifiableList(apis);
  }

  public List<RoleProcess> jobs() {
    return Collections.unmodifiableList(jobs);
  }

  /**
   * Stops the gateways and the api together (they drain and flush their write-back to Kafka), then
   * the jobs, then HBase, Kafka and Redis.
   */
  @Override
  public void close() {
    List<RoleProcess> writers = new ArrayList<>(gateways);
    writers.addAll(apis);
    writers.parallelStream().forEach(RoleProcess::close);
    jobs.parallelStream().forEach(RoleProcess::close);
    for (int i = backends.size() - 1; i >= 0; i--) {
      try {
        backends.get(i).close();
      } catch (Exception e) {
        log.warn("Stopping {} failed: {}", backends.get(i), e.toString());
      }
    }
    backends.clear();
  }

  private interface IoSupplier<T> {
    T get() throws IOException;
  }

  private static <T> T io(IoSupplier<T> s) {
    try {
      return s.get();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static IOException asIo(Throwable e) {
    if (e instanceof IOException io) {
      return io;
    }
    if (e instanceof UncheckedIOException u) {
      return u.getCause();
    }
    return new IOException(e.getMessage(), e);
  }
}
