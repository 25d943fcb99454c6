package io.playline.node.grpc;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.playline.time.LogThrottle;
import io.playline.time.Time;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Filter;
import java.util.logging.LogRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps client-caused HTTP/2 stream errors out of the log: grpc-netty logs every one (a stream
 * refused over {@code MAX_CONCURRENT_STREAMS}, a frame on a closed stream, ...) at WARNING with a
 * stack trace, so 53 KiB from a client became 1.7 MiB of log. A filter on grpc-netty's logger drops
 * those records, counts them ({@code playline.grpc.stream.errors}) and logs one line without a
 * stack trace at most once per {@link #INTERVAL_SECONDS} s. Process-wide (java.util.logging's
 * loggers are); thread-safe.
 */
public final class StreamErrorLog implements Filter {
  static final long INTERVAL_SECONDS = 10;
  private static final Logger log = LoggerFactory.getLogger(StreamErrorLog.class);
  /** Held strongly: java.util.logging keeps loggers weakly, and a collected one would lose the filter. */
  private static final java.util.logging.Logger GRPC_SERVER =
      java.util.logging.Logger.getLogger("io.grpc.netty.NettyServerHandler");
  private static final StreamErrorLog INSTANCE = new StreamErrorLog();

  private final LongAdder errors = new LongAdder();
  /** On the machine's time: the filter is process-wide, as java.util.logging is, not any node's. */
  private final LogThrottle lines = new LogThrottle(Time.SYSTEM, Duration.ofSeconds(INTERVAL_SECONDS));

  private StreamErrorLog() {}

  /** Installs the filter (once per process) and the counter on {@code registry}. */
  public static void install(MeterRegistry registry) {
    synchronized (GRPC_SERVER) {
      if (GRPC_SERVER.getFilter() != INSTANCE) {
        GRPC_SERVER.setFilter(INSTANCE);
      }
    }
    if (registry.find("playline.grpc.stream.errors").meter() == null) { // both gRPC servers of a node install it
      FunctionCounter.builder("playline.grpc.stream.errors", INSTANCE.errors, LongAdder::sum)
          .description("HTTP/2 stream errors caused by clients (refused streams and such), logged at most once per "
              + INTERVAL_SECONDS + " s")
          .register(registry);
    }
  }

  @Override
  public boolean isLoggable(LogRecord record) {
    if (!"Stream Error".equals(record.getMessage())) {
      return true;
    }
    errors.increment();
    long pending = lines.count();
    if (pending > 0) {
      Throwable cause = record.getThrown();
      log.info("{} HTTP/2 stream error(s) caused by clients since the last report (latest: {}); counted in "
          + "playline_grpc_stream_errors_total, reported at most every {} s", pending,
          cause == null ? "?" : cause.getMessage(), INTERVAL_SECONDS);
    }
    return false;
  }
}
