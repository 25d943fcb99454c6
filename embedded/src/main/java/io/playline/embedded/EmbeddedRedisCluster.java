package io.playline.embedded;

import io.playline.time.Time;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Redis Cluster on 127.0.0.1: {@code masters} masters with {@code replicasPerMaster}
 * replicas each, every node a {@code redis-server} child process ({@link EmbeddedRedis}: the
 * system binary, else the bundled Redis 6.2) with the append-only file on, formed with raw
 * {@code CLUSTER} commands. For tests that need slots, redirects and failovers; faults are
 * injected with {@link #killMaster} and repaired with {@link #restart}.
 *
 * <p>Every node's process is killed when the JVM exits if {@link #close()} did not stop it. A
 * node's client port P and its cluster bus port P + 10000 are both taken on 127.0.0.1.
 *
 * <p>Thread-safe: queries may run concurrently with each other; {@link #killMaster}, {@link
 * #restart} and {@link #close} are serialized.
 */
public final class EmbeddedRedisCluster implements EmbeddedServer {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedRedisCluster.class);
  private static final Duration FORM_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);
  private static final int NODE_START_ATTEMPTS = 3;

  /**
   * How to start the cluster.
   *
   * @param workDir holds one directory per node ({@code node-<port>}: log, append-only file,
   *     cluster config file), and the extracted binary if any
   * @param masters masters serving the 16384 slots in equal ranges (1..16)
   * @param replicasPerMaster replicas of each master (0..4)
   * @param nodeTimeout {@code cluster-node-timeout}: how long a node may be unreachable before it
   *     is failed (and its replica promoted); 100 ms..60 s, small in tests
   */
  public record Options(Path workDir, int masters, int replicasPerMaster, Duration nodeTimeout) {
    public Options {
      Objects.requireNonNull(workDir, "workDir");
      if (masters < 1 || masters > 16) {
        throw new IllegalArgumentException("masters: " + masters + " (expected: 1..16)");
      }
      if (replicasPerMaster < 0 || replicasPerMaster > 4) {
        throw new IllegalArgumentException("replicasPerMaster: " + replicasPerMaster + " (expected: 0..4)");
      }
      if (nodeTimeout.compareTo(Duration.ofMillis(100)) < 0 || nodeTimeout.compareTo(Duration.ofSeconds(60)) > 0) {
        throw new IllegalArgumentException("nodeTimeout: " + nodeTimeout + " (expected: 100ms..60s)");
      }
    }
  }

  /** A node's address: {@code 127.0.0.1} and its client port. */
  public record Node(String host, int port) {
    /** {@code redis://host:port}. */
    public String uri() {
      return "redis://" + host + ":" + port;
    }
  }

  private final Options options;
  private final Path binary;
  private final List<Integer> ports;
  /** Index-aligned with {@link #ports}; null while a node is killed. Guarded by {@code this}. */
  private final List<@Nullable EmbeddedRedis> processes;
  private boolean closed;

  private EmbeddedRedisCluster(Options options, Path binary, List<Integer> ports, List<@Nullable EmbeddedRedis> processes) {
    this.options = options;
    this.binary = binary;
    this.ports = List.copyOf(ports);
    this.processes = processes;
  }

  /**
   * Starts every node, forms the cluster and returns once every node reports {@code
   * cluster_state:ok}, all views agree and every replica is in sync with its master.
   *
   * @throws IOException when a node cannot start or the cluster does not form within 60 s; every
   *     node started by then is stopped
   */
  public static EmbeddedRedisCluster start(Options options) throws IOException {
    long startNanos = Time.SYSTEM.nanoTime();
    Path workDir = options.workDir().toAbsolutePath();
    Files.createDirectories(workDir);
    Path binary = RedisBinary.locate(workDir);
    int count = options.masters() * (1 + options.replicasPerMaster());
    List<@Nullable EmbeddedRedis> processes = new ArrayList<>(count);
    List<Integer> ports = new ArrayList<>(count);
    try {
      for (int port : FreePorts.pickClusterPorts(count)) {
        EmbeddedRedis node = startNode(options, binary, port, true);
        processes.add(node);
        ports.add(node.port());
      }
      ClusterFormation.form(ports, options.masters(), options.replicasPerMaster(), FORM_TIMEOUT);
    } catch (IOException | RuntimeException e) {
      stopAll(processes);
      throw e;
    }
    log.info("Started Redis Cluster of {} masters x {} replicas on ports {} in {} ms (binary {}, node timeout {} ms)",
        options.masters(), options.replicasPerMaster(), ports,
        TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - startNanos), binary, options.nodeTimeout().toMillis());
    return new EmbeddedRedisCluster(options, binary, ports, processes);
  }

  /** Starts the node on {@code port}; a fresh node may move to another free port pair if that one is taken. */
  private static EmbeddedRedis startNode(Options options, Path binary, int port, boolean fresh) throws IOException {
    for (int attempt = 1; ; attempt++) {
      Path dir = Files.createDirectories(options.workDir().toAbsolutePath().resolve("node-" + port));
      List<String> args = List.of(
          "--cluster-enabled", "yes",
          "--cluster-config-file", dir.resolve("nodes.conf").toString(),
          "--cluster-node-timeout", Long.toString(options.nodeTimeout().toMillis()),
          // Fail over whatever the replica's last contact with its master: a test kills masters.
          "--cluster-replica-validity-factor", "0",
          "--repl-diskless-sync-delay", "0");
      try {
        return EmbeddedRedis.start(new EmbeddedRedis.Options(dir, port, true, args), binary);
      } catch (IOException e) {
        if (!fresh || attempt >= NODE_START_ATTEMPTS) {
          throw e;
        }
        log.warn("Redis Cluster node on port {} did not start, trying another port: {}", port, e.getMessage());
        port = FreePorts.pickClusterPorts(1)[0];
      }
    }
  }

  @Override
  public String name() {
    return "redis-cluster";
  }

  /** Returns {@code redis://127.0.0.1:P} of a running node (the first one that runs), a client's seed. */
  public String seedUri() {
    return aliveNode().uri();
  }

  /** Every node, running or killed, masters first (in slot order), then their replicas, as started. */
  public List<Node> nodes() {
    return ports.stream().map(EmbeddedRedisCluster::node).toList();
  }

  /** The hash slot of {@code key} (Redis's own answer, {@code CLUSTER KEYSLOT}: hash tags honoured). */
  public int slotOf(String key) throws IOException {
    return ClusterAdmin.keySlot(aliveNode().port(), key);
  }

  /** The node that serves {@code slot} as master, as a running node sees it now. */
  public Node masterOf(int slot) throws IOException {
    if (slot < 0 || slot >= ClusterFormation.SLOTS) {
      throw new IllegalArgumentException("slot: " + slot + " (expected: 0..16383)");
    }
    return node(ClusterAdmin.view(aliveNode().port()).masterOf(slot)
        .orElseThrow(() -> new IOException("no master serves slot " + slot)).port());
  }

  /** The node that serves {@code key}'s slot as master, as a running node sees it now. */
  public Node masterOfKey(String key) throws IOException {
    return masterOf(slotOf(key));
  }

  /** The nodes replicating {@code master}, as a running node sees it now. */
  public List<Node> replicasOf(Node master) throws IOException {
    ClusterView view = ClusterAdmin.view(aliveNode().port());
    String id = view.byPort(master.port()).orElseThrow(() -> new IllegalArgumentException("not a node: " + master)).id();
    return view.entries().stream().filter(e -> id.equals(e.masterId())).map(e -> node(e.port())).toList();
  }

  /**
   * Waits until every replica of {@code master} has acknowledged every write the master took
   * before this call (replicas acknowledge once a second), so that a kill loses none of them.
   */
  public void awaitReplicated(Node master, Duration timeout) throws IOException {
    ClusterAdmin.await("replicas of " + master + " in sync", timeout, ClusterFormation.replicated(master.port()));
  }

  /**
   * Kills {@code master} with SIGKILL ({@code kill -9}, as {@link Process#destroyForcibly()}): no
   * shutdown, nothing flushed. Its replica takes over after the node timeout plus an election.
   *
   * @throws IllegalArgumentException when the node is not a running master
   */
  public synchronized void killMaster(Node master) throws IOException {
    int i = indexOf(master);
    EmbeddedRedis process = processes.get(i);
    if (process == null || !ClusterAdmin.view(master.port()).myself().map(ClusterView.Entry::master).orElse(false)) {
      throw new IllegalArgumentException("not a running master: " + master);
    }
    process.kill();
    processes.set(i, null);
  }

  /**
   * Starts a killed node again on its port and directory (its cluster config file makes it the
   * same node; a master that was failed over rejoins as a replica of its successor) and waits
   * until the cluster is healthy again: every node reachable, views agreed, replicas in sync.
   */
  public synchronized void restart(Node node, Duration timeout) throws IOException {
    int i = indexOf(node);
    if (processes.get(i) != null) {
      throw new IllegalArgumentException("still running: " + node);
    }
    processes.set(i, startNode(options, binary, node.port(), false));
    awaitHealthy(timeout);
  }

  /**
   * Waits until the running nodes form a healthy cluster: {@code cluster_state:ok} on each with
   * every slot served by {@code masters} masters, every running node reachable from each, all
   * views agreed, every running replica in sync. After a kill this holds once the failover is done.
   */
  public void awaitHealthy(Duration timeout) throws IOException {
    ClusterAdmin.await("a healthy cluster", timeout, () -> ClusterFormation.healthy(ports, down(), options.masters()));
  }

  private synchronized Set<Integer> down() {
    Set<Integer> down = new HashSet<>();
    for (int i = 0; i < ports.size(); i++) {
      if (processes.get(i) == null) {
        down.add(ports.get(i));
      }
    }
    return down;
  }

  private synchronized Node aliveNode() {
    for (int i = 0; i < ports.size(); i++) {
      if (processes.get(i) != null) {
        return node(ports.get(i));
      }
    }
    throw new IllegalStateException("no node of the cluster runs");
  }

  private int indexOf(Node node) {
    int i = ports.indexOf(node.port());
    if (i < 0 || !ClusterAdmin.HOST.equals(node.host())) {
      throw new IllegalArgumentException("not a node of this cluster: " + node);
    }
    return i;
  }

  private static Node node(int port) {
    return new Node(ClusterAdmin.HOST, port);
  }

  /** Stops every node at once ({@code SHUTDOWN NOSAVE}, then signals), within 15 s in all. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    stopAll(processes);
  }

  private static void stopAll(List<@Nullable EmbeddedRedis> processes) {
    List<Runnable> stops = new ArrayList<>();
    for (EmbeddedRedis process : processes) {
      if (process != null) {
        stops.add(process::close);
      }
    }
    if (!BoundedStop.runAll("redis-cluster-stop", stops, STOP_TIMEOUT)) {
      log.warn("Some Redis Cluster nodes did not stop within {} s; the JVM exit hook kills them", STOP_TIMEOUT.toSeconds());
    }
  }

  @Override
  public String toString() {
    return "EmbeddedRedisCluster{ports=" + ports + ", binary=" + binary + "}";
  }
}
