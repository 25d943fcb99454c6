/** The WebSocket transport of the player stream (one protobuf frame per binary WebSocket frame). */
@NullMarked
package io.playline.gateway.ws;

import org.jspecify.annotations.NullMarked;
