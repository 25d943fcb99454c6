/**
 * The player edge: terminates player connections (WebSocket and gRPC), authenticates once, keeps
 * the session on the connection, hands heartbeats to the node's write path ({@code
 * io.playline.node.write}) and answers with acks, and pushes progress to a user's other devices.
 * {@link io.playline.gateway.GatewayNode} is still the one way a process assembles a node (loops,
 * core, write path, push, admin port from {@code io.playline.node}); the internal API ({@code
 * io.playline.api}) binds on a node's loops and writes through its batcher.
 */
@NullMarked
package io.playline.gateway;

import org.jspecify.annotations.NullMarked;
