/**
 * The node runtime every serving role runs on: {@link io.playline.node.Node} assembles the event
 * loops ({@code loops/}), the history core, the batched Redis write path ({@code write/}), TLS and
 * the admin port from {@link io.playline.node.NodeConfig} (read from {@code settings/} and {@link
 * io.playline.node.RequestSettings}); {@link io.playline.node.StartedParts} stops what a process
 * started in reverse order. The other subpackages hold connection admission, the gRPC server
 * builder, service credentials and error mapping; none depends on this package. The player edge
 * ({@code io.playline.gateway}) and the internal API ({@code io.playline.api}) attach to a {@code
 * Node} as siblings; the job role uses the loops and admin port alone.
 */
@NullMarked
package io.playline.node;

import org.jspecify.annotations.NullMarked;
