package io.playline.gateway.heartbeat;

import io.playline.core.write.EventRules;
import io.playline.gateway.budget.UserBudgets;
import io.playline.node.WriteLimitsConfig;
import io.playline.node.write.FlagCalendar;
import io.playline.time.Time;

/**
 * What the heartbeat step needs of its node, and nothing else: the step can be built (and tested)
 * without a session, an authenticator or a resume store. Thread-safe collaborators only.
 *
 * @param writePath where a heartbeat's records are handed ({@link WritePath#of} the node's batcher)
 * @param budgets the user budgets' clock and the refusals of events sent while told to wait (each
 *     connection takes its heartbeats' events from the account it was admitted with)
 * @param writes how much one heartbeat may carry
 * @param eventRules event validation and time clamping
 * @param calendar the first-today day
 * @param time the node's clock: a heartbeat's receive time
 * @param maxRefusalsBeforeClose {@code user.max.refusals.before.close}: refusals while waiting
 *     before the connection is closed RATE_LIMITED
 */
public record HeartbeatPath(
    WritePath writePath,
    UserBudgets budgets,
    WriteLimitsConfig writes,
    EventRules eventRules,
    FlagCalendar calendar,
    Time time,
    int maxRefusalsBeforeClose) {}
