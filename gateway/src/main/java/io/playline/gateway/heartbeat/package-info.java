/** A player's heartbeat on its way in: validated, budgeted, handed to the node's write path ({@code io.playline.node.write}), then acked on its connection. */
@NullMarked
package io.playline.gateway.heartbeat;

import org.jspecify.annotations.NullMarked;
