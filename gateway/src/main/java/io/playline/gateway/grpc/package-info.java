/** The gRPC transports: the player stream (Gateway/Connect) and the internal History API. */
@NullMarked
package io.playline.gateway.grpc;

import org.jspecify.annotations.NullMarked;
