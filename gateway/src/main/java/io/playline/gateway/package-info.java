/**
 * The gateway: terminates player connections (WebSocket and gRPC), authenticates once, keeps the
 * session on the connection, batches heartbeats and answers with acks, and serves the admin HTTP
 * port. {@link io.playline.gateway.GatewayNode} is the one way a process assembles all of it; the
 * internal API ({@code io.playline.api}) binds on a node's loops and writes through its batcher.
 */
@NullMarked
package io.playline.gateway;

import org.jspecify.annotations.NullMarked;
