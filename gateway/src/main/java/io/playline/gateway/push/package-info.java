/**
 * Cross-device progress push, the delivering side: when a user's progress on an item moves, the
 * user's other connected devices receive {@code ProgressSync}, on this node directly and on other
 * nodes through the publishing side in {@code io.playline.node.push} (user-nodes registry, node
 * channels).
 *
 * <p>Data flow: {@code WriteBatcher} (applied records) or {@code PushService} (backends) → {@code
 * PushRouter} → local {@link io.playline.gateway.push.ConnectionRegistry} and, for every other node
 * the {@code UserNodesRegistry} lists, its channel → that node's {@link io.playline.gateway.push.RedisNodeChannels} → its {@code ConnectionRegistry} →
 * each connection's {@link io.playline.gateway.push.SyncCoalescer}. What the registry learns of a
 * user's other nodes also prices the user's budgets ({@code RegistryListener}, {@code budget/UserBudgets}).
 */
@NullMarked
package io.playline.gateway.push;

import org.jspecify.annotations.NullMarked;
