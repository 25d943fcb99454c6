package io.playline.embedded;

import io.playline.time.Time;
import java.io.IOException;
import java.time.Duration;
import java.util.EnumSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.jspecify.annotations.Nullable;

/**
 * Waits until a client can use HBase: {@code hbase:meta} is available, the master lists the
 * namespaces (which needs the namespace table or, in newer versions, meta online) and no region is
 * in transition. The last one makes a start return with the master quiet: a stop right after it (a
 * Ctrl-C during start-up) otherwise meets region assignments the master is still dispatching to the
 * region server, which log their failures with stack traces once its connection is closed.
 *
 * <p>Stateless; each call uses its own short-lived connection.
 */
final class HBaseReadiness {

  private static final Duration POLL_INTERVAL = Duration.ofMillis(100);

  private HBaseReadiness() {}

  /**
   * Returns once HBase answers as a ready cluster, or throws when {@code deadlineNanos} (a {@link
   * Time#nanoTime()} of {@link Time#SYSTEM}) passes.
   *
   * @throws IOException naming the last failure if the deadline passes first
   */
  static void await(Configuration clientConf, long deadlineNanos) throws IOException {
    await(clientConf, deadlineNanos, StillStarting.ALWAYS);
  }

  /**
   * As {@link #await(Configuration, long)}, running {@code stillStarting} before each probe and
   * giving up with its exception.
   */
  static void await(Configuration clientConf, long deadlineNanos, StillStarting stillStarting)
      throws IOException {
    Configuration conf = new Configuration(clientConf);
    // Fail each probe quickly and let this loop retry, instead of the client's minutes of retries.
    conf.setInt("hbase.client.retries.number", 2);
    conf.setInt("hbase.client.pause", 100);
    conf.setInt("hbase.client.operation.timeout", 10_000);
    conf.setInt("hbase.rpc.timeout", 5_000);
    @Nullable Exception last = null;
    try (Connection connection = ConnectionFactory.createConnection(conf);
        Admin admin = connection.getAdmin()) {
      while (true) {
        stillStarting.check();
        try {
          if (admin.isTableAvailable(TableName.META_TABLE_NAME)
              && admin.listNamespaceDescriptors().length > 0
              && admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.REGIONS_IN_TRANSITION))
                  .getRegionStatesInTransition().isEmpty()) {
            return;
          }
        } catch (IOException e) {
          last = e;
        }
        if (Time.SYSTEM.nanoTime() - deadlineNanos > 0) {
          throw new IOException("HBase not ready: "
              + (last == null ? "hbase:meta not available" : last.toString()), last);
        }
        Polling.pause(POLL_INTERVAL, "HBase");
      }
    }
  }
}
