/**
 * The WebSocket transport of the player stream (one protobuf frame per binary WebSocket frame):
 * one handler per step of a connection's pipeline ({@link
 * io.playline.gateway.ws.WebSocketChannelInitializer}).
 */
@NullMarked
package io.playline.gateway.ws;

import org.jspecify.annotations.NullMarked;
