package io.playline.embedded;

import io.playline.time.Time;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.common.Uuid;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kafka KRaft cluster of N nodes on 127.0.0.1, each node (broker and controller) its own
 * JVM process, for fault tests and a local multi-process topology; stopped by {@link #close()}.
 *
 * <p>Every topic, internal ones included, has N replicas and min ISR 2 (1 for one node), so with
 * three nodes acks=all produces survive the loss of any one. Nodes are numbered 1..N (their
 * {@code node.id}); each keeps its ports and log directory for the life of this object, so {@link
 * #kill(int)} or {@link #stop(int)} then {@link #restart(int)} brings the same broker back. The
 * processes cannot outlive this JVM (see {@link ChildJvm}). Thread-safe; {@link #restart(int)},
 * {@link #stop(int)} and {@link #kill(int)} of one node are not meant to race each other.
 */
public final class KafkaClusterProcesses implements EmbeddedServer {

  private static final Logger log = LoggerFactory.getLogger(KafkaClusterProcesses.class);
  private static final String HOST = KafkaServerProperties.HOST;
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
  /** One node's SIGTERM: a controlled shutdown hands its leaderships over in a few seconds. */
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
  /** All nodes at once: the last ones cannot shut down in a controlled way and are killed. */
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(15);
  private static final int START_ATTEMPTS = 2;
  
  /**
   * How to start the cluster.
   *
   * @param workDir holds one directory per node ({@code node-1/}: log dirs, server.properties,
   *     {@code kafka.log}); reused directories keep their data
   * @param nodes how many broker+controller processes; at least 1
   * @param classpath the nodes' class path (Kafka's broker jars and an SLF4J binding); null for
   *     this JVM's
   * @param heapMegabytes each node's maximum heap
   * @param jvmArgs further JVM options for every node
   */
  public record Options(Path workDir, int nodes, @Nullable String classpath, int heapMegabytes,
      List<String> jvmArgs) {
    public Options {
      Objects.requireNonNull(workDir, "workDir");
      if (nodes < 1) {
        throw new IllegalArgumentException("nodes: " + nodes + " (expected: >= 1)");
      }
      ChildJvm.checkHeap(heapMegabytes);
      jvmArgs = List.copyOf(jvmArgs);
    }

    /** Three nodes on this JVM's class path, 384 MiB of heap each. */
    public static Options of(Path workDir) {
      return new Options(workDir, 3, null, 384, List.of());
    }
  }

  private final Options options;
  private final List<KafkaNode> nodes;
  private final AtomicBoolean closed = new AtomicBoolean();

  private KafkaClusterProcesses(Options options, List<KafkaNode> nodes) {
    this.options = options;
    this.nodes = nodes;
  }

  /**
   * Formats the nodes' log directories if needed, starts every node and returns once the cluster
   * reports all of them as brokers.
   *
   * @throws IOException if a node exits or the cluster is not complete within 120 s; the message
   *     has a node's log tail, and no process is left running
   */
  public static KafkaClusterProcesses start(Options options) throws IOException {
    long startNanos = Time.SYSTEM.nanoTime();
    Path workDir = options.workDir().toAbsolutePath();
    Files.createDirectories(workDir);
    String clusterId = clusterId(workDir);
    for (int attempt = 1; ; attempt++) {
      KafkaClusterProcesses cluster = new KafkaClusterProcesses(options, nodes(options, workDir));
      try {
        for (KafkaNode node : cluster.nodes) {
          KafkaStorage.formatIfNeeded(node.logDir(), node.id(), clusterId);
          node.launch();
        }
        cluster.awaitBrokers(cluster.nodes.size(), -1, startNanos + READY_TIMEOUT.toNanos());
        log.info("Started Kafka cluster of {} nodes on {} in {} ms (cluster id {}, dir {})",
            cluster.nodes.size(), cluster.bootstrapServers(),
            TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - startNanos), clusterId, workDir);
        return cluster;
      } catch (IOException | RuntimeException e) {
        cluster.close();
        // A port picked a moment ago may have been taken since; pick all of them again.
        if (attempt < START_ATTEMPTS && String.valueOf(e.getMessage()).contains("BindException")) {
          log.warn("A Kafka node could not bind its port; retrying on other ports");
          continue;
        }
        throw e;
      }
    }
  }

  /** The id kept in {@code workDir/cluster.id}, so reused log directories agree with new ones. */
  private static String clusterId(Path workDir) throws IOException {
    Path file = workDir.resolve("cluster.id");
    if (Files.exists(file)) {
      return Files.readString(file, StandardCharsets.UTF_8).strip();
    }
    String id = Uuid.randomUuid().toString();
    Files.writeString(file, id, StandardCharsets.UTF_8);
    return id;
  }

  private static List<KafkaNode> nodes(Options options, Path workDir) throws IOException {
    int count = options.nodes();
    int[] ports = FreePorts.pick(2 * count);
    String voters = IntStream.rangeClosed(1, count)
        .mapToObj(id -> id + "@" + HOST + ":" + ports[count + id - 1])
        .collect(Collectors.joining(","));
    List<KafkaNode> nodes = new ArrayList<>(count);
    for (int id = 1; id <= count; id++) {
      Path dir = workDir.resolve("node-" + id);
      Files.createDirectories(dir);
      Map<String, String> properties = KafkaServerProperties.node(id, voters, count,
          dir.resolve("logs"), ports[id - 1], ports[count + id - 1]);
      Path propertiesFile = dir.resolve("server.properties");
      Properties file = new Properties();
      file.putAll(properties);
      try (Writer out = Files.newBufferedWriter(propertiesFile, StandardCharsets.UTF_8)) {
        file.store(out, "Written by KafkaClusterProcesses; rewritten on every start");
      }
      ChildJvm.Spec spec = new ChildJvm.Spec("kafka-" + id, dir, dir.resolve("kafka.log"),
          options.classpath(), options.heapMegabytes(), options.jvmArgs(), "kafka.Kafka",
          List.of(propertiesFile.toString()));
      nodes.add(new KafkaNode(id, ports[id - 1], dir.resolve("logs"), spec));
    }
    return nodes;
  }

  /**
   * Waits until the cluster reports at least {@code count} brokers, including {@code nodeId} if it
   * is positive; fails as soon as a node that should run has exited.
   */
  private void awaitBrokers(int count, int nodeId, long deadlineNanos) throws IOException {
    try {
      KafkaReadiness.await(bootstrapServers(),
          ids -> ids.size() >= count && (nodeId <= 0 || ids.contains(nodeId)), deadlineNanos,
          () -> {
            for (KafkaNode node : nodes) {
              node.checkRunningIfExpected();
            }
          });
    } catch (ChildJvm.ExitedException | InterruptedIOException e) {
      throw e;
    } catch (IOException e) {
      throw new IOException(e.getMessage() + " within " + READY_TIMEOUT.toSeconds() + " s; "
          + nodes.get(Math.max(0, nodeId - 1)).describe(), e);
    }
  }

  @Override
  public String name() {
    return "kafka";
  }

  /** Returns every node's client listener: {@code "127.0.0.1:P1,127.0.0.1:P2,..."}. */
  public String bootstrapServers() {
    return nodes.stream().map(KafkaNode::address).collect(Collectors.joining(","));
  }

  /** Returns node {@code nodeId}'s client listener, {@code "127.0.0.1:PORT"}. */
  public String bootstrapServer(int nodeId) {
    return node(nodeId).address();
  }

  /** Returns how many nodes the cluster has, running or not. */
  public int nodeCount() {
    return nodes.size();
  }

  /** True if node {@code nodeId}'s process is running. */
  public boolean isRunning(int nodeId) {
    return node(nodeId).isRunning();
  }

  /** Kills node {@code nodeId} with SIGKILL ({@code kill -9}) and waits until it is gone. */
  public void kill(int nodeId) {
    node(nodeId).kill();
    log.info("Killed Kafka node {}", nodeId);
  }

  /**
   * Stops node {@code nodeId} with SIGTERM (a controlled shutdown) and waits for it, at most 30 s,
   * then kills it.
   */
  public void stop(int nodeId) {
    boolean graceful = node(nodeId).stop(STOP_TIMEOUT);
    log.info("Stopped Kafka node {} ({})", nodeId, graceful ? "SIGTERM" : "SIGKILL after timeout");
  }

  /**
   * Starts node {@code nodeId} again on its ports and directories (stopping it first if it runs)
   * and returns once the cluster reports it as a broker. Its replicas catch up afterwards.
   *
   * @throws IOException if it exits or is not back within 120 s; the message has its log tail
   */
  public void restart(int nodeId) throws IOException {
    if (closed.get()) {
      throw new IllegalStateException("closed: " + this);
    }
    long startNanos = Time.SYSTEM.nanoTime();
    KafkaNode node = node(nodeId);
    node.stop(STOP_TIMEOUT);
    node.launch();
    awaitBrokers(1, nodeId, startNanos + READY_TIMEOUT.toNanos());
    log.info("Restarted Kafka node {} in {} ms", nodeId,
        TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - startNanos));
  }

  /**
   * Starts every node again on its ports and directories (stopping any still running) and returns
   * once the cluster reports all of them as brokers. After an outage of the whole cluster the
   * controllers need a majority of their quorum back to elect a leader, which restarting one node at
   * a time ({@link #restart}) would wait for in vain.
   *
   * @throws IOException if a node exits or the cluster is not back within 120 s
   */
  public void restartAll() throws IOException {
    if (closed.get()) {
      throw new IllegalStateException("closed: " + this);
    }
    long startNanos = Time.SYSTEM.nanoTime();
    for (KafkaNode node : nodes) {
      node.stop(STOP_TIMEOUT);
      node.launch();
    }
    awaitBrokers(nodes.size(), -1, startNanos + READY_TIMEOUT.toNanos());
    log.info("Restarted all {} Kafka nodes in {} ms", nodes.size(),
        TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - startNanos));
  }

  private KafkaNode node(int nodeId) {
    if (nodeId < 1 || nodeId > nodes.size()) {
      throw new IllegalArgumentException("nodeId: " + nodeId + " (expected: 1.." + nodes.size() + ")");
    }
    return nodes.get(nodeId - 1);
  }

  /**
   * Stops every node: SIGTERM to all at once, SIGKILL to those still running after 15 s.
   * Idempotent; leaves no process behind.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    long startNanos = Time.SYSTEM.nanoTime();
    nodes.forEach(KafkaNode::terminate);
    long deadline = startNanos + CLOSE_TIMEOUT.toNanos();
    for (KafkaNode node : nodes) {
      node.stop(Duration.ofNanos(Math.max(1, deadline - Time.SYSTEM.nanoTime())));
    }
    log.info("Stopped Kafka cluster {} in {} ms", options.workDir(),
        TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - startNanos));
  }

  @Override
  public String toString() {
    return "KafkaClusterProcesses{" + bootstrapServers() + "}";
  }
}
