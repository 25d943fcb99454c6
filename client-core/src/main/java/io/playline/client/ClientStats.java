package io.playline.client;

import java.util.Arrays;

/**
 * Counters of one {@link AbstractPlaylineClient} since it was built; a consistent-enough snapshot
 * for monitoring and tests (each value is read atomically, not all together). Immutable (a value).
 */
public final class ClientStats {
  private final long[] values;

  /**
   * @param eventsReported calls to {@code report}
   * @param eventsAcked events released by an ack (a superseded report is never acked)
   * @param eventsDropped events discarded unacked: beyond {@code maxUnackedEvents} (the oldest
   *     first), or rejected by the gateway as invalid
   * @param eventsResent events sent again after a connection was lost or a heartbeat failed
   * @param connections connections that reached {@link ConnectionState#CONNECTED}
   * @param tokenFetches calls to the token supplier (to connect, and to refresh)
   * @param sessionResumes connections authenticated by resuming the session (no token)
   * @param tokenRefreshes fresh tokens the gateway accepted on a live connection ({@code RefreshOk})
   */
  public ClientStats(long eventsReported, long eventsAcked, long eventsDropped, long eventsResent,
      long connections, long tokenFetches, long sessionResumes, long tokenRefreshes) {
    values = new long[] {eventsReported, eventsAcked, eventsDropped, eventsResent, connections, tokenFetches,
        sessionResumes, tokenRefreshes};
  }

  /** Calls to {@code report}. */
  public long eventsReported() {
    return values[0];
  }

  /** Events released by an ack. */
  public long eventsAcked() {
    return values[1];
  }

  /** Events discarded unacked (beyond {@code maxUnackedEvents}, or rejected as invalid). */
  public long eventsDropped() {
    return values[2];
  }

  /** Events sent again after a connection was lost or a heartbeat failed. */
  public long eventsResent() {
    return values[3];
  }

  /** Connections that reached {@link ConnectionState#CONNECTED}. */
  public long connections() {
    return values[4];
  }

  /** Calls to the token supplier. */
  public long tokenFetches() {
    return values[5];
  }

  /** Connections authenticated by resuming the session. */
  public long sessionResumes() {
    return values[6];
  }

  /** Fresh tokens the gateway accepted on a live connection. */
  public long tokenRefreshes() {
    return values[7];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ClientStats && Arrays.equals(values, ((ClientStats) o).values);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    return "ClientStats[eventsReported=" + values[0] + ", eventsAcked=" + values[1] + ", eventsDropped=" + values[2]
        + ", eventsResent=" + values[3] + ", connections=" + values[4] + ", tokenFetches=" + values[5]
        + ", sessionResumes=" + values[6] + ", tokenRefreshes=" + values[7] + "]";
  }
}
