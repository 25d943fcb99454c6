package io.playline.embedded;

import org.apache.hadoop.conf.Configuration;

/**
 * A real HBase started by this process, in this JVM ({@link EmbeddedHBase}) or as a child process
 * ({@link HBaseProcess}); clients find it through its ZooKeeper on 127.0.0.1.
 *
 * <p>Implementations are thread-safe.
 */
public interface HBaseServer extends EmbeddedServer {

  @Override
  default String name() {
    return "hbase";
  }

  /** Returns the ZooKeeper quorum clients use: {@code "127.0.0.1"}. */
  default String zookeeperQuorum() {
    return LocalHBaseSettings.HOST;
  }

  /** Returns ZooKeeper's client port on {@link #zookeeperQuorum()}. */
  int zookeeperPort();

  /**
   * Returns a new client configuration pointing at this server ({@code hbase.zookeeper.quorum} and
   * {@code hbase.zookeeper.property.clientPort} set), ready for {@code ConnectionFactory}.
   */
  default Configuration clientConfiguration() {
    return LocalHBaseSettings.client(zookeeperPort());
  }
}
