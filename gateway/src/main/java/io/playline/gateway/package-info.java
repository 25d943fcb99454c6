/**
 * The gateway: terminates player connections (WebSocket and gRPC), authenticates once, keeps the
 * session on the connection, batches heartbeats and answers with acks; also serves the internal
 * gRPC API and the admin HTTP port.
 */
@NullMarked
package io.playline.gateway;

import org.jspecify.annotations.NullMarked;
