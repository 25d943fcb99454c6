/**
 * How failures reach clients of every role: store and request exceptions as protocol errors
 * ({@link io.playline.node.errors.ServiceErrors}), protocol errors as gRPC statuses ({@link
 * io.playline.node.errors.StatusMapper}), and the client labels checked on the way in.
 */
@NullMarked
package io.playline.node.errors;

import org.jspecify.annotations.NullMarked;
