package io.playline.gateway.session;

import io.playline.gateway.config.GatewayConfig;
import io.playline.gateway.heartbeat.EventWait;
import io.playline.gateway.heartbeat.HeartbeatPath;
import io.playline.gateway.push.PushRegistrar;
import io.playline.time.Time;
import org.jspecify.annotations.Nullable;

/**
 * What every {@link StreamSession} of a gateway stands on, one narrow part per thing a session does,
 * each an interface a test can fake in memory. Thread-safe parts only.
 *
 * @param config the session's limits and timeouts
 * @param time the node's clock: server time, deadlines and every timer of a session
 * @param metrics gateway meters
 * @param tokens verifies a token, once per connection and on each {@code Refresh}
 * @param resumeStore the sessions a reconnecting client can resume: recorded on a token, found on a
 *     resume, kept fresh
 * @param limits what one user may do through this node: authenticate, keep connections open, delete
 * @param push where an authenticated connection registers for its user's progress pushes
 * @param heartbeats the heartbeat step's part: the write path, the events budget and the limits of what
 *     a heartbeat carries (the {@code Auth} frame's device and platform labels are held to them too)
 * @param history what the stream's queries read and delete; null when this node serves none (answered
 *     UNAVAILABLE)
 */
public record SessionParts(
    GatewayConfig config,
    Time time,
    GatewayMetrics metrics,
    Authenticator tokens,
    ResumeStore resumeStore,
    UserLimits limits,
    PushRegistrar push,
    HeartbeatPath heartbeats,
    @Nullable PlayerHistory history) {

  /** A new connection's wait after an events refusal, on the clock the refusals are measured on. */
  public EventWait eventWait() {
    return new EventWait(heartbeats.budgets()::nanoTime);
  }
}
