package io.playline.gateway.session;

import io.playline.core.query.HistoryService;
import io.playline.core.write.EventRules;
import io.playline.gateway.budget.UserBudgets;
import io.playline.gateway.config.GatewayConfig;
import io.playline.gateway.heartbeat.HeartbeatPath;
import io.playline.gateway.heartbeat.WritePath;
import io.playline.gateway.push.ConnectionRegistry;
import io.playline.node.WriteLimits;
import io.playline.node.edge.ConnectionLimiter;
import io.playline.node.write.FlagCalendar;
import io.playline.node.write.WriteBatcher;
import io.playline.time.Time;
import org.jspecify.annotations.Nullable;

/**
 * What every {@link StreamSession} of a gateway shares. Thread-safe collaborators only.
 *
 * @param config limits and timeouts
 * @param writes how much one heartbeat may carry, as the node reads it ({@code NodeConfig#writes})
 * @param authenticator verifies tokens, once per connection
 * @param sessions server-side sessions for resume
 * @param batcher the heartbeat write path
 * @param calendar the first-today day
 * @param eventRules event validation and time clamping
 * @param metrics gateway meters
 * @param time the node's clock: server time, deadlines and every timer of a session
 * @param history the stream's queries; null when this node serves none (answered UNAVAILABLE)
 * @param connections where authenticated connections register for progress push
 * @param limiter the node's connection caps (per node, per address, per user)
 * @param budgets what one user may spend across its connections (events/s, deletes/min)
 */
public record SessionServices(
    GatewayConfig config,
    WriteLimits writes,
    Authenticator authenticator,
    SessionStore sessions,
    WriteBatcher batcher,
    FlagCalendar calendar,
    EventRules eventRules,
    GatewayMetrics metrics,
    Time time,
    ConnectionRegistry connections,
    @Nullable HistoryService history,
    ConnectionLimiter limiter,
    UserBudgets budgets) {

  /** What the heartbeat step of one connection needs of these. */
  public HeartbeatPath heartbeatPath() {
    return new HeartbeatPath(WritePath.of(batcher), budgets, writes, eventRules, calendar, time, connections::touch,
        config.maxUserRefusalsBeforeClose());
  }
}
