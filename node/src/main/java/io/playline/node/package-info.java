/**
 * The node runtime every Playline role runs on: one pair of event loops ({@link
 * io.playline.node.EventLoops}), the parts a process starts and stops in order ({@link
 * io.playline.node.StartedParts}) and the node-wide settings ({@link io.playline.node.NodeSettings}).
 * Its subpackages hold the batched Redis write path, the admin port, TLS, connection admission, the
 * gRPC server builder, service credentials and error mapping. The player edge ({@code
 * io.playline.gateway}) and the internal API ({@code io.playline.api}) plug into it as siblings; the
 * job role uses its loops and admin port.
 */
@NullMarked
package io.playline.node;

import org.jspecify.annotations.NullMarked;
