/**
 * Cross-device progress push: when a user's progress on an item moves, the user's other connected
 * devices receive {@code ProgressSync}, on this node directly and on other gateway nodes through a
 * Redis session registry and one Redis pub/sub channel per node.
 *
 * <p>Data flow: {@code WriteBatcher} (applied records) or {@link io.playline.gateway.push.PushService}
 * (backends) → {@link io.playline.gateway.push.PushRouter} → local {@link
 * io.playline.gateway.push.ConnectionRegistry} and, for every other node the {@link
 * io.playline.gateway.push.SessionRegistry} lists, {@link io.playline.gateway.push.NodeChannels} →
 * that node's {@code ConnectionRegistry} → each connection's {@link io.playline.gateway.push.SyncCoalescer}.
 * What the registry learns of a user's other nodes also prices the user's budgets ({@link
 * io.playline.gateway.push.RegistryListener}, {@code session/UserBudgets}).
 */
@NullMarked
package io.playline.gateway.push;

import io.playline.node.write.WriteBatcher;
import org.jspecify.annotations.NullMarked;
