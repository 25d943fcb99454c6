package io.playline.embedded;

import io.playline.time.Time;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real standalone HBase (master, regionserver and ZooKeeper in one JVM, {@code HMaster start})
 * running as a child process on 127.0.0.1 with its data on the local filesystem; stopped by
 * {@link #close()}, and never outliving this JVM (see {@link ChildJvm}).
 *
 * <p>Configured through {@code workDir/conf/hbase-site.xml} ({@link LocalHBaseSettings}, the
 * settings of {@link EmbeddedHBase}), placed first on the child's class path. Tables live in
 * {@code workDir/hbase} and survive {@link #kill()} and {@link #restart()}: the WAL is replayed.
 * Thread-safe; {@link #kill()}, {@link #restart()} and {@link #close()} are not meant to race.
 */
public final class HBaseProcess implements HBaseServer {

  private static final Logger log = LoggerFactory.getLogger(HBaseProcess.class);
  private static final String MAIN_CLASS = "org.apache.hadoop.hbase.master.HMaster";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  /** An orderly cluster shutdown (regions flushed and closed) takes a few seconds here. */
  private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(20);
  /**
   * SIGTERM alone takes ~23 s: the master's hook stops ZooKeeper before the regionserver's hook
   * runs, which then retries against it. After an orderly shutdown failed, do not wait for that.
   */
  private static final Duration SIGTERM_TIMEOUT = Duration.ofSeconds(5);
  private static final int START_ATTEMPTS = 2;
  /** Silence HBase's and Hadoop's reflective-access warnings on JDK 17 (the opens below). */
  private static final List<String> JDK17_FLAGS = List.of(
      "--add-opens", "java.base/java.io=ALL-UNNAMED",
      "--add-opens", "java.base/java.nio=ALL-UNNAMED",
      "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens", "java.base/java.lang=ALL-UNNAMED",
      "--add-opens", "java.base/jdk.internal.ref=ALL-UNNAMED",
      "--add-opens", "java.base/java.lang.reflect=ALL-UNNAMED",
      "--add-opens", "java.base/java.util=ALL-UNNAMED",
      "--add-opens", "java.base/java.util.concurrent=ALL-UNNAMED",
      "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
      "--add-exports", "java.security.jgss/sun.security.krb5=ALL-UNNAMED",
      "--add-exports", "java.base/sun.net.dns=ALL-UNNAMED",
      "--add-exports", "java.base/sun.net.util=ALL-UNNAMED",
      "--add-modules", "jdk.unsupported",
      "-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true");

  /**
   * How to start HBase.
   *
   * @param workDir holds the tables ({@code hbase/}), scratch files ({@code tmp/}), ZooKeeper's
   *     files ({@code zookeeper/}, wiped on start, kept by {@link #restart()}), {@code conf/} and {@code hbase.log}
   * @param classpath the child's class path (hbase-server and its dependencies, an SLF4J
   *     binding); null for this JVM's
   * @param heapMegabytes the child's maximum heap
   * @param jvmArgs further JVM options
   */
  public record Options(Path workDir, @Nullable String classpath, int heapMegabytes,
      List<String> jvmArgs) {
    public Options {
      Objects.requireNonNull(workDir, "workDir");
      ChildJvm.checkHeap(heapMegabytes);
      jvmArgs = List.copyOf(jvmArgs);
    }

    /** This JVM's class path, 512 MiB of heap. */
    public static Options of(Path workDir) {
      return new Options(workDir, null, 512, List.of());
    }
  }

  private final ChildJvm.Spec spec;
  private final Path workDir;
  private final int zookeeperPort;
  private volatile ChildJvm process;
  private final AtomicBoolean closed = new AtomicBoolean();

  private HBaseProcess(ChildJvm.Spec spec, Path workDir, int zookeeperPort, ChildJvm process) {
    this.spec = spec;
    this.workDir = workDir;
    this.zookeeperPort = zookeeperPort;
    this.process = process;
  }

  /**
   * Starts HBase on a free ZooKeeper port and returns once a client sees {@code hbase:meta} and
   * the namespaces online.
   *
   * @throws IOException if the process exits or is not ready within 120 s; the message has its
   *     log tail, and the process is not left running
   */
  public static HBaseProcess start(Options options) throws IOException {
    long startNanos = Time.SYSTEM.nanoTime();
    Path workDir = options.workDir().toAbsolutePath();
    for (int attempt = 1; ; attempt++) {
      int zkPort = FreePorts.pick();
      ChildJvm.Spec spec = prepare(options, workDir, zkPort);
      try {
        // A new process on a new port: no client has seen its ZooKeeper, so it starts empty.
        WorkDirs.deleteRecursively(spec.workDir().resolve("zookeeper"));
        HBaseProcess hbase = new HBaseProcess(spec, workDir, zkPort, launch(spec, zkPort));
        log.info("Started HBase process (pid {}) on ZooKeeper {}:{} in {} ms, data in {}",
            hbase.process.pid(), LocalHBaseSettings.HOST, zkPort,
            TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - startNanos), workDir);
        return hbase;
      } catch (IOException e) {
        // HMaster exits when its ZooKeeper cannot bind the port picked a moment ago.
        if (attempt < START_ATTEMPTS && String.valueOf(e.getMessage()).contains("Could not start ZK")) {
          log.warn("HBase's ZooKeeper could not bind port {}; retrying on another port", zkPort);
          continue;
        }
        throw e;
      }
    }
  }

  /** Creates the directories, writes {@code conf/hbase-site.xml} and returns what to run. */
  private static ChildJvm.Spec prepare(Options options, Path workDir, int zkPort)
      throws IOException {
    Files.createDirectories(workDir.resolve("hbase"));
    Files.createDirectories(workDir.resolve("tmp"));
    Path confDir = Files.createDirectories(workDir.resolve("conf"));
    Configuration site = LocalHBaseSettings.serverSite(workDir, START_TIMEOUT, zkPort);
    try (OutputStream out = Files.newOutputStream(confDir.resolve("hbase-site.xml"))) {
      site.writeXml(out);
    }
    String classpath = confDir + File.pathSeparator
        + (options.classpath() != null ? options.classpath() : System.getProperty("java.class.path"));
    List<String> jvmArgs = new ArrayList<>(JDK17_FLAGS);
    jvmArgs.addAll(options.jvmArgs());
    return new ChildJvm.Spec("hbase", workDir, workDir.resolve("hbase.log"), classpath,
        options.heapMegabytes(), jvmArgs, MAIN_CLASS, List.of("start"));
  }

  /** Starts the process and waits until it is ready; kills it if it is not. */
  private static ChildJvm launch(ChildJvm.Spec spec, int zkPort) throws IOException {
    long deadline = Time.SYSTEM.nanoTime() + START_TIMEOUT.toNanos();
    ChildJvm process = ChildJvm.start(spec);
    StillStarting alive = process::checkAlive;
    try {
      awaitZooKeeper(zkPort, deadline, alive);
      HBaseReadiness.await(LocalHBaseSettings.client(zkPort), deadline, alive);
      return process;
    } catch (IOException | RuntimeException e) {
      process.kill();
      if (e instanceof ChildJvm.ExitedException exited) {
        throw exited;
      }
      throw new IOException("HBase (ZooKeeper port " + zkPort + ") was not ready within "
          + START_TIMEOUT.toSeconds() + " s: " + e + "; " + process.describe(40), e);
    }
  }

  /** Waits until ZooKeeper accepts connections: an HBase client blocks for long before that. */
  private static void awaitZooKeeper(int zkPort, long deadlineNanos,
      StillStarting alive) throws IOException {
    while (true) {
      alive.check();
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(LocalHBaseSettings.HOST, zkPort), 500);
        return;
      } catch (IOException e) {
        if (Time.SYSTEM.nanoTime() - deadlineNanos > 0) {
          throw new IOException("ZooKeeper did not listen on port " + zkPort, e);
        }
      }
      Polling.pause(Duration.ofMillis(100), "HBase's ZooKeeper");
    }
  }

  /** Returns ZooKeeper's client port on {@link #zookeeperQuorum()}; the same after a restart. */
  @Override
  public int zookeeperPort() {
    return zookeeperPort;
  }

  /** True if the HBase process is running. */
  public boolean isRunning() {
    return process.isAlive();
  }

  /** Kills the process with SIGKILL ({@code kill -9}) and waits until it is gone. */
  public void kill() {
    process.kill();
    log.info("Killed HBase process (data in {})", workDir);
  }

  /**
   * Starts HBase again on the same work dir and ZooKeeper port (shutting it down first if it
   * runs) and returns once it is ready; edits acknowledged before a {@link #kill()} are replayed
   * from the WAL.
   *
   * @throws IOException as {@link #start}, or if the ZooKeeper port has been taken meanwhile
   */
  public void restart() throws IOException {
    if (closed.get()) {
      throw new IllegalStateException("closed: " + this);
    }
    long startNanos = Time.SYSTEM.nanoTime();
    shutDown(process);
    // ZooKeeper keeps its state (zookeeper/ is not wiped), as a real ensemble outlives an HBase
    // restart. A fresh one would count its transactions from zero again, and refuses every client
    // that has seen a later one ("client must try another server") until it catches up: a client
    // connected across the restart (a job's, a gateway's) could stay refused for good. What the
    // killed process left (its sessions, the master's and regionserver's ephemeral nodes) expires
    // within zookeeper.session.timeout (10 s) and the master recovers the dead regionserver.
    process = launch(spec, zookeeperPort);
    log.info("Restarted HBase process (pid {}) in {} ms", process.pid(),
        TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - startNanos));
  }

  /**
   * Stops HBase: an orderly cluster shutdown through the client API (regions flushed and closed;
   * at most 20 s), else SIGTERM, then SIGKILL after 5 s. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    long startNanos = Time.SYSTEM.nanoTime();
    boolean orderly = shutDown(process);
    log.info("Stopped HBase process in {} ms ({})",
        TimeUnit.NANOSECONDS.toMillis(Time.SYSTEM.nanoTime() - startNanos),
        orderly ? "orderly shutdown" : "signal");
  }

  /** True if the process had exited or exited after an orderly shutdown request. */
  private boolean shutDown(ChildJvm current) {
    if (!current.isAlive()) {
      return true;
    }
    long deadline = Time.SYSTEM.nanoTime() + SHUTDOWN_TIMEOUT.toNanos();
    boolean requested = BoundedStop.run("hbase-process-shutdown-" + zookeeperPort,
        this::requestClusterShutdown, SHUTDOWN_TIMEOUT);
    if (requested && current.awaitExit(Duration.ofNanos(Math.max(1, deadline - Time.SYSTEM.nanoTime())))) {
      return true;
    }
    log.warn("HBase did not shut down within {} s; signalling it", SHUTDOWN_TIMEOUT.toSeconds());
    current.stop(SIGTERM_TIMEOUT);
    return false;
  }

  private void requestClusterShutdown() {
    Configuration conf = clientConfiguration();
    conf.setInt("hbase.client.retries.number", 1);
    conf.setInt("hbase.rpc.timeout", 5_000);
    conf.setInt("hbase.client.operation.timeout", 10_000);
    conf.setInt("zookeeper.recovery.retry", 1);
    try (Connection connection = ConnectionFactory.createConnection(conf);
        Admin admin = connection.getAdmin()) {
      admin.shutdown();
    } catch (IOException | RuntimeException e) {
      // The master may drop the connection as it goes down; the exit decides.
      log.debug("HBase shutdown request ended with {}", e.toString());
    }
  }

  @Override
  public String toString() {
    return "HBaseProcess{zookeeper=" + LocalHBaseSettings.HOST + ":" + zookeeperPort
        + ", workDir=" + workDir + "}";
  }
}
