package io.playline.bench.load;

import java.time.Duration;
import java.util.List;

/**
 * A set of player connections driven together: one in-process {@link LoadGenerator} or several
 * generator child processes ({@link ChildFleet}). Methods are called from the benchmark's control
 * thread.
 */
public interface Fleet extends AutoCloseable {
  /** Connections this fleet opens in total. */
  int connections();

  /**
   * Offers {@code totalPerSecond} heartbeats per second across all connections (rate pacing),
   * reached linearly over {@code ramp} from the current rate. Ignored under interval pacing.
   */
  void setRate(double totalPerSecond, Duration ramp);

  /**
   * Opens at most {@code total} connections until raised again (all of them by default); lets a
   * benchmark sample the servers at a steady half-way point.
   */
  void limitConnections(int total);

  /** Cumulative counters, and the latencies since the previous call. */
  LoadSnapshot snapshot();

  /** Processes whose CPU counts as the generator's. */
  List<Long> pids();

  /** Closes every connection and stops the processes, bounded in time. */
  @Override
  void close();
}
