package io.playline.embedded;

import java.nio.file.Path;
import java.time.Duration;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;

/**
 * Builds the configurations of a one-master, one-regionserver HBase on the local filesystem that
 * shares its JVM with other servers on a small machine.
 *
 * <p>Keys are spelled out as strings so they can be found in HBase's {@code hbase-default.xml}.
 * Stateless and thread-safe.
 */
final class LocalHBaseSettings {

  /** Every listener binds here, and the servers advertise it, so nothing leaves the machine. */
  static final String HOST = "127.0.0.1";

  private LocalHBaseSettings() {}

  /**
   * Returns the configuration of the master and regionserver, before the ZooKeeper port is known.
   *
   * @param workDir absolute; HBase keeps its data in {@code workDir/hbase} and scratch files in
   *     {@code workDir/tmp}
   * @param startTimeout how long the master may take to become active and initialized, in all
   */
  static Configuration server(Path workDir, Duration startTimeout) {
    return applyServer(HBaseConfiguration.create(), workDir, startTimeout);
  }

  /**
   * Returns only the settings of {@link #server} plus the ZooKeeper port, without HBase's defaults:
   * the content of an {@code hbase-site.xml} for a standalone HMaster process.
   */
  static Configuration serverSite(Path workDir, Duration startTimeout, int zkPort) {
    Configuration conf = applyServer(new Configuration(false), workDir, startTimeout);
    conf.setInt("hbase.zookeeper.property.clientPort", zkPort);
    return conf;
  }

  private static Configuration applyServer(Configuration conf, Path workDir, Duration startTimeout) {
    // Standalone mode: master and regionserver are threads of this JVM (LocalHBaseCluster).
    conf.setBoolean("hbase.cluster.distributed", false);
    conf.set("hbase.rootdir", workDir.resolve("hbase").toUri().toString());
    conf.set("hbase.tmp.dir", workDir.resolve("tmp").toString());
    conf.set("hadoop.tmp.dir", workDir.resolve("tmp").resolve("hadoop").toString());
    conf.set("hbase.zookeeper.property.dataDir", workDir.resolve("zookeeper").toString());
    // The local filesystem has no hflush/hsync; HBase refuses to write WALs on it unless told so.
    conf.setBoolean("hbase.unsafe.stream.capability.enforce", false);

    conf.set("hbase.zookeeper.quorum", HOST);
    conf.set("hbase.zookeeper.property.clientPortAddress", HOST);
    // HMasterCommandLine uses 10 s in standalone mode; the 90 s default only delays recovery.
    conf.setInt("zookeeper.session.timeout", 10_000);

    // Free ports, loopback only, no web UIs.
    conf.setInt("hbase.master.port", 0);
    conf.setInt("hbase.regionserver.port", 0);
    conf.setInt("hbase.master.info.port", -1);
    conf.setInt("hbase.regionserver.info.port", -1);
    conf.set("hbase.master.ipc.address", HOST);
    conf.set("hbase.regionserver.ipc.address", HOST);
    conf.set("hbase.master.hostname", HOST);
    conf.set("hbase.unsafe.regionserver.hostname", HOST);

    // There is exactly one regionserver: stop waiting for more as soon as it checks in.
    conf.setInt("hbase.master.wait.on.regionservers.mintostart", 1);
    conf.setInt("hbase.master.wait.on.regionservers.maxtostart", 1);
    // The master places regions only on a regionserver that has sent a heartbeat; the default
    // 3 s interval adds seconds to every start (and to each step of recovering meta on a restart).
    conf.setInt("hbase.regionserver.msginterval", 1_000);
    // LocalHBaseCluster.startup() waits for an active master, then for its initialization; split
    // the budget so the two waits together stay within startTimeout.
    long activeMillis = Math.min(30_000, startTimeout.toMillis() / 4);
    conf.setLong("hbase.master.start.timeout.localHBaseCluster", activeMillis);
    conf.setLong("hbase.master.init.timeout.localHBaseCluster",
        startTimeout.toMillis() - activeMillis);

    // Two cores shared with Redis, Kafka and the application: few threads, little heap.
    conf.setInt("hbase.regionserver.handler.count", 4);
    conf.setInt("hbase.master.handler.count", 4);
    conf.setInt("hbase.regionserver.metahandler.count", 2);
    conf.setInt("hbase.regionserver.replication.handler.count", 1);
    conf.setInt("hbase.master.procedure.threads", 4);
    conf.setInt("hbase.netty.eventloop.rpcserver.thread.count", 2);
    conf.setFloat("hfile.block.cache.size", 0.1f);
    conf.setFloat("hbase.regionserver.global.memstore.size", 0.2f);
    // MSLAB reserves a 2 MiB chunk per written store; many small test tables would waste heap.
    conf.setBoolean("hbase.hregion.memstore.mslab.enabled", false);
    return conf;
  }

  /** Returns a client configuration for the HBase whose ZooKeeper listens on {@code zkPort}. */
  static Configuration client(int zkPort) {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", HOST);
    conf.setInt("hbase.zookeeper.property.clientPort", zkPort);
    return conf;
  }
}
