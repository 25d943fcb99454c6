package io.playline.client;

/**
 * Counters of one {@link AbstractPlaylineClient} since it was built; a consistent-enough snapshot for
 * monitoring and tests (each value is read atomically, not all together).
 *
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
public record ClientStats(long eventsReported, long eventsAcked, long eventsDropped, long eventsResent,
    long connections, long tokenFetches, long sessionResumes, long tokenRefreshes) {}
