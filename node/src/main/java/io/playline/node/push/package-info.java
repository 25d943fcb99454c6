/**
 * Progress push, the publishing side every writing node shares: its settings and config, where push
 * state lives in Redis ({@link io.playline.node.push.PushKeys}), the user-nodes registry of which nodes
 * hold a user, the messages nodes send each other, and {@link io.playline.node.push.PushRouter}
 * (this node's connections, if any; registry lookup → one publish per other node). Delivering to connections is the player edge's
 * ({@code io.playline.gateway.push}).
 */
@NullMarked
package io.playline.node.push;

import org.jspecify.annotations.NullMarked;
