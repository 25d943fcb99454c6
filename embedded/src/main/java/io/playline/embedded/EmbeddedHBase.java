package io.playline.embedded;

import io.playline.time.Time;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.LocalHBaseCluster;
import org.apache.hadoop.hbase.zookeeper.MiniZooKeeperCluster;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real HBase (one master, one regionserver, ZooKeeper) running as threads of this JVM on the
 * local filesystem, stopped by {@link #close()}.
 *
 * <p>This is HBase's own standalone mode: a {@link MiniZooKeeperCluster} on 127.0.0.1 and a
 * {@link LocalHBaseCluster}, as {@code hbase master start} runs them. Tables live in {@code
 * workDir/hbase} and survive a restart on the same work dir; ZooKeeper state does not need to and
 * is recreated on every start. Thread-safe.
 */
public final class EmbeddedHBase implements HBaseServer {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedHBase.class);
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  /**
   * How to start HBase.
   *
   * @param workDir holds the tables ({@code hbase/}), scratch files ({@code tmp/}) and ZooKeeper's
   *     files ({@code zookeeper/}, wiped on start); created if missing
   * @param zookeeperPort ZooKeeper's client port on 127.0.0.1; 0 picks a free one
   */
  public record Options(Path workDir, int zookeeperPort) {
    public Options {
      Objects.requireNonNull(workDir, "workDir");
      if (zookeeperPort < 0 || zookeeperPort > 65_535) {
        throw new IllegalArgumentException(
            "zookeeperPort: " + zookeeperPort + " (expected: 0..65535)");
      }
    }
  }

  private final MiniZooKeeperCluster zookeeper;
  private final LocalHBaseCluster cluster;
  private final int zookeeperPort;
  private final Path workDir;
  private final AtomicBoolean closed = new AtomicBoolean();

  private EmbeddedHBase(
      MiniZooKeeperCluster zookeeper, LocalHBaseCluster cluster, int zookeeperPort, Path workDir) {
    this.zookeeper = zookeeper;
    this.cluster = cluster;
    this.zookeeperPort = zookeeperPort;
    this.workDir = workDir;
  }

  /**
   * Starts ZooKeeper and HBase and returns once the master is initialized and {@code hbase:meta}
   * and the namespaces are online.
   *
   * @throws IOException if the ZooKeeper port is taken, or HBase is not ready within 120 s; nothing
   *     is left running in that case
   */
  public static EmbeddedHBase start(Options options) throws IOException {
    long startNanos = Time.SYSTEM.nanoTime();
    Path workDir = options.workDir().toAbsolutePath();
    prepareDirectories(workDir);
    // As HMasterCommandLine does in standalone mode: lets a second HBase in this JVM (a restart)
    // register metrics sources whose names are already taken.
    DefaultMetricsSystem.setMiniClusterMode(true);
    Configuration conf = LocalHBaseSettings.server(workDir, START_TIMEOUT);

    MiniZooKeeperCluster zookeeper = startZooKeeper(conf, workDir, options.zookeeperPort());
    int zkPort = zookeeper.getClientPort();
    conf.setInt("hbase.zookeeper.property.clientPort", zkPort);
    log.info("Starting HBase on ZooKeeper {}:{}, data in {}", LocalHBaseSettings.HOST, zkPort,
        workDir);
    LocalHBaseCluster cluster = null;
    try {
      cluster = new LocalHBaseCluster(conf, 1, 1);
      cluster.startup();
      HBaseReadiness.await(
          LocalHBaseSettings.client(zkPort), startNanos + START_TIMEOUT.toNanos());
    } catch (IOException | RuntimeException e) {
      log.error("HBase did not start; stopping what did (work dir {})", workDir, e);
      stopQuietly(cluster, zookeeper);
      if (e instanceof InterruptedIOException) {
        Thread.currentThread().interrupt();
        throw (InterruptedIOException) e;
      }
      throw new IOException(
          "HBase did not start (time limit " + START_TIMEOUT.toSeconds() + " s; work dir "
              + workDir + ", ZooKeeper port " + zkPort + "): " + e.getMessage(), e);
    }
    log.info("HBase ready in {} ms (ZooKeeper {}:{})",
        TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - startNanos), LocalHBaseSettings.HOST,
        zkPort);
    return new EmbeddedHBase(zookeeper, cluster, zkPort, workDir);
  }

  @Override
  public int zookeeperPort() {
    return zookeeperPort;
  }

  /**
   * Shuts the cluster down in order (regions flushed and closed, then the regionserver and the
   * master), waiting at most 30 s, then stops ZooKeeper. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    long startNanos = Time.SYSTEM.nanoTime();
    log.info("Stopping HBase (ZooKeeper port {}, data in {})", zookeeperPort, workDir);
    stopQuietly(cluster, zookeeper);
    log.info("HBase stopped in {} ms",
        TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - startNanos));
  }

  @Override
  public String toString() {
    return "EmbeddedHBase{zookeeper=" + LocalHBaseSettings.HOST + ":" + zookeeperPort
        + ", workDir=" + workDir + "}";
  }

  private static void prepareDirectories(Path workDir) throws IOException {
    Files.createDirectories(workDir.resolve("hbase"));
    Files.createDirectories(workDir.resolve("tmp"));
    // Hadoop and HBase also write below java.io.tmpdir, which the build points into target/.
    Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
    // HBase 2 keeps nothing in ZooKeeper that it cannot rebuild from hbase/, while sessions and
    // ephemeral nodes left by an unclean stop would stall the next master until they expire.
    WorkDirs.deleteRecursively(workDir.resolve("zookeeper"));
  }

  private static MiniZooKeeperCluster startZooKeeper(Configuration conf, Path workDir, int port)
      throws IOException {
    MiniZooKeeperCluster zookeeper = new MiniZooKeeperCluster(conf);
    if (port != 0) {
      // A listed port is used as is: startup fails instead of moving to the next port.
      zookeeper.addClientPort(port);
    }
    int bound;
    try {
      bound = zookeeper.startup(workDir.resolve("zookeeper").toFile());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      zookeeper.shutdown();
      throw new InterruptedIOException("interrupted while starting ZooKeeper");
    }
    if (bound <= 0) {
      zookeeper.shutdown();
      throw new IOException("ZooKeeper could not listen on " + LocalHBaseSettings.HOST + ":"
          + port + " (port in use?)");
    }
    return zookeeper;
  }

  /** Stops the cluster within {@link #STOP_TIMEOUT}, then ZooKeeper; logs instead of throwing. */
  private static void stopQuietly(@Nullable LocalHBaseCluster cluster,
      MiniZooKeeperCluster zookeeper) {
    if (cluster != null) {
      // shutdown() returns before the master thread has closed its local store (it checks the
      // wrong Thread for liveness), so join the threads too; both can block without limit.
      boolean stopped = BoundedStop.run("embedded-hbase-shutdown", () -> {
        cluster.shutdown();
        cluster.join();
      }, STOP_TIMEOUT);
      if (!stopped) {
        log.warn("HBase did not stop within {} s; stopping ZooKeeper anyway. Unflushed edits "
            + "are in the WAL and get replayed on the next start.", STOP_TIMEOUT.toSeconds());
      }
    }
    try {
      zookeeper.shutdown();
    } catch (IOException | RuntimeException e) {
      log.warn("ZooKeeper did not stop cleanly", e);
    }
  }
}
