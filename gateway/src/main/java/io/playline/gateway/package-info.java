/**
 * The player edge: terminates player connections (WebSocket and gRPC), authenticates once, keeps
 * the session on the connection, hands heartbeats to the node's write path ({@code
 * io.playline.node.write}) and answers with acks, and pushes progress to a user's other devices.
 * {@link io.playline.gateway.PlayerEdge} attaches it to an {@code io.playline.node.Node} (loops,
 * core, write path, admin port), whose batcher tells its push ({@code push/PushPlug}) what moved;
 * the internal API ({@code io.playline.api}) attaches to the same kind of node as a sibling. This
 * package is the assembly ({@code PlayerEdge}, {@code GatewayServer}) and uses its subpackages;
 * none uses it back: the typed config ({@code GatewayConfig}) is in {@code config/}, the meters
 * ({@code GatewayMetrics}) in {@code session/}.
 */
@NullMarked
package io.playline.gateway;

import org.jspecify.annotations.NullMarked;
