package io.playline.node.grpc;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.playline.time.LogThrottle;
import io.playline.time.Time;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Filter;
import java.util.logging.LogRecord;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps client-caused gRPC message errors out of the log: grpc-netty logs every request message it
 * cannot deframe (a length prefix longer than the message, the compressed flag without a {@code
 * grpc-encoding}, a message over the size limit) at WARNING with a stack trace, so 4 KB from a client
 * became 1 MiB of log; {@link RequestParsing} reports the messages that could not be parsed. Each
 * kind is counted ({@code playline.grpc.message.errors{kind}}) and summed up in one INFO line
 * without a stack trace at most once per {@link LogThrottle#DEFAULT_INTERVAL} per kind.
 * The calls themselves are answered as gRPC answers them ({@code INTERNAL} for a broken framing,
 * {@code RESOURCE_EXHAUSTED} over the limit) or as {@link RequestParsing} does. Process-wide
 * (java.util.logging's loggers are); thread-safe.
 */
public final class ClientErrorLog implements Filter {
  private static final Logger log = LoggerFactory.getLogger(ClientErrorLog.class);
  /** Held strongly: java.util.logging keeps loggers weakly, and a collected one would lose the filter. */
  private static final java.util.logging.Logger GRPC_STREAM =
      java.util.logging.Logger.getLogger("io.grpc.netty.NettyServerStream");
  private static final ClientErrorLog INSTANCE = new ClientErrorLog();

  /** What was wrong with a message; the name is the metric's {@code kind}. */
  public enum Kind {
    /** The stream ended inside a message (its length prefix promised more). */
    TRUNCATED,
    /** The compressed flag set without a {@code grpc-encoding} (or with one the server does not know). */
    COMPRESSED_WITHOUT_ENCODING,
    /** Over {@code frame.max.bytes}, as sent or once decompressed. */
    TOO_LARGE,
    /** Not a protobuf message of the request's type. */
    UNDECODABLE,
    /** Any other framing the deframer refused. */
    MALFORMED;

    String tag() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Map<Kind, LongAdder> counts = new EnumMap<>(Kind.class);
  private final Map<Kind, LogThrottle> lines = new EnumMap<>(Kind.class);

  private ClientErrorLog() {
    for (Kind k : Kind.values()) {
      counts.put(k, new LongAdder());
      lines.put(k, new LogThrottle(Time.SYSTEM));
    }
  }

  /** Installs the filter (once per process) and the counters on {@code registry} (once per registry). */
  public static void install(MeterRegistry registry) {
    synchronized (GRPC_STREAM) {
      if (GRPC_STREAM.getFilter() != INSTANCE) {
        GRPC_STREAM.setFilter(INSTANCE);
      }
    }
    for (Kind k : Kind.values()) {
      if (registry.find("playline.grpc.message.errors").tag("kind", k.tag()).meter() == null) {
        FunctionCounter.builder("playline.grpc.message.errors", INSTANCE.counts.get(k), LongAdder::sum)
            .tag("kind", k.tag())
            .description("gRPC request messages that could not be read, caused by clients; logged at most once per "
                + LogThrottle.DEFAULT_INTERVAL.toSeconds() + " s per kind")
            .register(registry);
      }
    }
  }

  @Override
  public boolean isLoggable(LogRecord record) {
    if (!"Exception processing message".equals(record.getMessage())) {
      return true;
    }
    Throwable cause = record.getThrown();
    String why = cause == null ? null : cause.getMessage();
    report(kindOf(why), why);
    return false;
  }

  /** A request message of this {@code kind} could not be read ({@link RequestParsing}, the player stream's reader). */
  public static void parseFailed(Kind kind, @Nullable String why) {
    INSTANCE.report(kind, why);
  }

  private static Kind kindOf(@Nullable String why) {
    String w = why == null ? "" : why.toLowerCase(Locale.ROOT);
    if (w.contains("end-of-stream mid-frame")) {
      return Kind.TRUNCATED;
    }
    if (w.contains("compress")) {
      return Kind.COMPRESSED_WITHOUT_ENCODING;
    }
    if (w.contains("exceeds maximum") || w.contains("resource_exhausted")) {
      return Kind.TOO_LARGE;
    }
    return Kind.MALFORMED;
  }

  private void report(Kind kind, @Nullable String why) {
    counts.get(kind).increment();
    long pending = lines.get(kind).count();
    if (pending > 0) {
      log.info("{} gRPC request message(s) of kind {} refused since the last report (latest: {}); counted in "
          + "playline_grpc_message_errors_total{kind=\"{}\"}, reported at most every {} s per kind", pending,
          kind.tag(), why, kind.tag(), LogThrottle.DEFAULT_INTERVAL.toSeconds());
    }
  }
}
