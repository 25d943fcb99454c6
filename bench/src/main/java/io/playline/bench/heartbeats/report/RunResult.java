package io.playline.bench.heartbeats.report;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one measured run produced: its figures by name (NaN = not measured), the errors and close
 * codes the clients saw, and notes. Immutable.
 *
 * @param kind {@code playline}, {@code echo} or {@code redis}
 * @param pass 1-based pass number
 * @param figures see the constants of this class, in report order
 * @param errors Error frames by code name (whole run)
 * @param closes connections closed, by close code (whole run; 4000 + code for Playline's)
 */
public record RunResult(String kind, int pass, Map<String, Double> figures, Map<String, Long> errors,
    Map<Integer, Long> closes) {
  public static final String CONNECTIONS = "connections open";
  public static final String OFFERED = "offered heartbeats/s";
  public static final String ACKED = "acked heartbeats/s";
  public static final String P50 = "ack p50 ms";
  public static final String P99 = "ack p99 ms";
  public static final String P999 = "ack p99.9 ms";
  public static final String MAX = "ack max ms";
  public static final String SKIPPED = "skipped (window full)/s";
  public static final String RSS_PER_CONN = "server RSS bytes/connection (marginal)";
  public static final String HEAP_PER_CONN = "server heap bytes/connection (marginal)";
  public static final String RSS_PER_CONN_FROM_ZERO = "server RSS bytes/connection from zero";
  public static final String CPU_SERVER = "server CPU us/heartbeat";
  public static final String CPU_REDIS = "redis-server CPU us/heartbeat";
  public static final String CPU_GENERATOR = "generator CPU us/heartbeat";
  /**
   * The server JVMs' JIT compilation time in the window as a share of their CPU: more than a few per
   * cent means the warm-up was too short for CPU figures (the compiler's threads are counted in them).
   */
  public static final String JIT_SHARE = "server JIT compiling, % of server CPU";
  public static final String IDENTITY = "identity checks/heartbeat";
  public static final String IDENTITY_PER_CONN = "identity checks/connection";
  public static final String REDIS_RT = "Redis round trips/heartbeat";
  public static final String REDIS_CMDS = "Redis commands/heartbeat";
  public static final String PUSH_LOOKUPS = "push-registry lookups/heartbeat";
  public static final String BATCH = "heartbeats/Redis batch";
  public static final String FIRST_TODAY_CMDS = "first-today Redis commands (whole run)";
  public static final String FIRST_TODAY_PER_HB = "first-today Redis commands/heartbeat";
  public static final String KAFKA = "Kafka records/heartbeat";
  public static final String HBASE = "HBase mutations/heartbeat";
  public static final String FLUSH_WINDOW = "flush-aligned window s";
  /** The node's own timeline of a heartbeat (playline_heartbeat_stage_seconds histograms over the window). */
  public static final String STAGE_WAIT_P50 = "node: read -> batch sent p50 ms";
  public static final String STAGE_WAIT_P99 = "node: read -> batch sent p99 ms";
  public static final String STAGE_REDIS_P50 = "node: batch round trip p50 ms";
  public static final String STAGE_REDIS_P99 = "node: batch round trip p99 ms";
  public static final String STAGE_NODE_P50 = "node: read -> ack handed on p50 ms";
  public static final String STAGE_NODE_P99 = "node: read -> ack handed on p99 ms";
  /** The node's heartbeat.ack.budget (ms), as its metrics report it. */
  public static final String ACK_BUDGET = "node: heartbeat.ack.budget ms";

  public RunResult {
    figures = Collections.unmodifiableMap(new LinkedHashMap<>(figures));
    errors = Map.copyOf(errors);
    closes = Map.copyOf(closes);
  }

  public double get(String figure) {
    Double v = figures.get(figure);
    return v == null ? Double.NaN : v;
  }
}
