package io.playline.bench.heartbeats;

import io.playline.bench.heartbeats.report.ReportMath;
import io.playline.bench.heartbeats.report.RunResult;
import io.playline.bench.probe.PrometheusText;
import java.util.Map;

/**
 * Turns the servers' {@code /metrics} deltas over a window into Playline's amplification figures:
 * what one acked heartbeat costs in identity checks, Redis round trips and commands, first-today
 * commands, Kafka records and HBase mutations. Stateless.
 */
final class Amplification {
  private Amplification() {}

  /**
   * Adds the figures to {@code out}.
   *
   * @param before metrics at the window's start
   * @param after metrics at its end
   * @param runStart metrics before the first connection (identity checks count per connection)
   * @param heartbeats heartbeats acked in the window
   * @param connections connections opened in the run
   */
  static void add(Map<String, Double> out, PrometheusText before, PrometheusText after, PrometheusText runStart,
      long heartbeats, long connections) {
    if (after.samples().isEmpty() || before.samples().isEmpty()) {
      return; // The echo server serves no metrics.
    }
    out.put(RunResult.IDENTITY, per(after.delta(before, "playline_auth_identity_checks_total"), heartbeats));
    out.put(RunResult.IDENTITY_PER_CONN, connections == 0 ? Double.NaN
        : after.delta(runStart, "playline_auth_identity_checks_total") / connections);
    double roundTrips = after.delta(before, "playline_redis_round_trips_total");
    out.put(RunResult.REDIS_RT, per(roundTrips, heartbeats));
    out.put(RunResult.REDIS_CMDS, per(after.delta(before, "playline_redis_commands_total", "path=\"write\""), heartbeats));
    out.put(RunResult.PUSH_LOOKUPS, per(after.delta(before, "playline_redis_commands_total", "path=\"push-lookup\""),
        heartbeats));
    double batches = after.delta(before, "playline_heartbeat_batch_heartbeats_count");
    out.put(RunResult.BATCH, batches > 0 ? after.delta(before, "playline_heartbeat_batch_heartbeats_sum") / batches
        : Double.NaN);
    out.put(RunResult.FIRST_TODAY_PER_HB, per(after.delta(before, "playline_first_today_redis_commands_total"),
        heartbeats));
    out.put(RunResult.KAFKA, per(after.delta(before, "playline_kafka_records_sent_total", "topic=\"history\""),
        heartbeats));
    out.put(RunResult.HBASE, per(after.delta(before, "playline_job_hbase_mutations_total"), heartbeats));
    stage(out, before, after, "wait", RunResult.STAGE_WAIT_P50, RunResult.STAGE_WAIT_P99);
    stage(out, before, after, "redis", RunResult.STAGE_REDIS_P50, RunResult.STAGE_REDIS_P99);
    stage(out, before, after, "node", RunResult.STAGE_NODE_P50, RunResult.STAGE_NODE_P99);
    out.put(RunResult.ACK_BUDGET, 1000 * after.sum("playline_heartbeat_ack_budget_seconds"));
  }

  /** p50 and p99 in ms of one {@code playline_heartbeat_stage_seconds} histogram over the window. */
  private static void stage(Map<String, Double> out, PrometheusText before, PrometheusText after, String stage,
      String p50, String p99) {
    String label = "stage=\"" + stage + "\"";
    out.put(p50, 1000 * after.quantileSince(before, 0.50, "playline_heartbeat_stage_seconds", label));
    out.put(p99, 1000 * after.quantileSince(before, 0.99, "playline_heartbeat_stage_seconds", label));
  }

  private static double per(double count, long heartbeats) {
    return ReportMath.perHeartbeat(count, heartbeats);
  }
}
