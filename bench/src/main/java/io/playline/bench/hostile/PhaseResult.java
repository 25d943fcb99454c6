package io.playline.bench.hostile;

import java.util.List;

/**
 * What one phase of the hostile bench measured: the honest players' ack latency and errors, what
 * the node spent (RSS, log bytes), and each attacker's stats. Immutable.
 *
 * @param name {@code baseline}, an attack's name, or {@code all}
 * @param seconds the phase's length
 * @param acked honest acks in the phase
 * @param p50Millis honest ack p50
 * @param p99Millis honest ack p99
 * @param honestErrors error frames, failed connects and closes of honest players in the phase
 * @param honestErrorKinds the same by code, e.g. {@code {UNAVAILABLE=3, close 4003=1}}
 * @param rssGrowthBytes the node's peak RSS in the phase minus its RSS at the start
 * @param logBytes bytes the node's log directory grew by
 * @param nodeCpuNanos CPU time the node's process spent in the phase ({@code /proc}; with standalone,
 *     the embedded Kafka and HBase too, not the Redis child)
 * @param attackerCpuNanos CPU time the attackers' process spent in the phase (its JIT and collector included)
 * @param recoverySeconds from the end of the phase until the honest players were acked at the offered rate
 *     again with a p99 within 2x the baseline's; NaN when not measured or not within the bound
 * @param attackers each attacker's stats at the end of the phase
 */
public record PhaseResult(String name, double seconds, long acked, double p50Millis, double p99Millis,
    long honestErrors, String honestErrorKinds, long rssGrowthBytes, long logBytes, long nodeCpuNanos,
    long attackerCpuNanos, double recoverySeconds, List<AttackStats.Snapshot> attackers) {

  public PhaseResult {
    attackers = List.copyOf(attackers);
  }

  /** The same result with {@code seconds} as its recovery time. */
  public PhaseResult withRecovery(double seconds) {
    return new PhaseResult(name, this.seconds, acked, p50Millis, p99Millis, honestErrors, honestErrorKinds,
        rssGrowthBytes, logBytes, nodeCpuNanos, attackerCpuNanos, seconds, attackers);
  }

  /** The node's CPU in the phase, in cores (1.0 = one core busy the whole phase). */
  public double nodeCores() {
    return seconds <= 0 ? Double.NaN : nodeCpuNanos / 1e9 / seconds;
  }

  /** The attackers' CPU in the phase, in cores. */
  public double attackerCores() {
    return seconds <= 0 ? Double.NaN : attackerCpuNanos / 1e9 / seconds;
  }

  /** Log growth per minute of the phase. */
  public double logBytesPerMinute() {
    return seconds <= 0 ? Double.NaN : logBytes * 60.0 / seconds;
  }
}
