package io.playline.node.edge;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Per-connection deadlines spread over the last quarter of their setting ({@code handshake.timeout},
 * {@code grpc.first.stream.timeout}, {@code admin.request.timeout}, {@code api.http.request.timeout}):
 * connections that arrived together — a slowloris opening all it may at once, a NAT's players after
 * a drain — then do not all reach their deadline in the same tick, and their closes (and whatever
 * reconnects) do not land on the I/O loops as one burst. The setting stays the longest a connection
 * may take. Stateless; any thread.
 */
public final class Deadlines {
  private Deadlines() {}

  /** A deadline between three quarters of {@code max} and {@code max}, in nanoseconds. */
  public static long spreadNanos(Duration max) {
    long nanos = max.toNanos();
    long floor = nanos - nanos / 4;
    return floor >= nanos ? nanos : ThreadLocalRandom.current().nextLong(floor, nanos + 1);
  }
}
