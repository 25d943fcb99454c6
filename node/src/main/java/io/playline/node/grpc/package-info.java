/**
 * How a node builds its gRPC servers (player stream, internal API): {@link
 * io.playline.node.grpc.GrpcServers} on the node's loops with per-connection HTTP/2 limits, admission
 * before the handshake, and client-caused stream errors kept out of the log.
 */
@NullMarked
package io.playline.node.grpc;

import org.jspecify.annotations.NullMarked;
