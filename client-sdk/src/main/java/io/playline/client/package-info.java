/**
 * The Playline player SDK: {@link io.playline.client.PlaylineClient} holds one persistent stream
 * to a gateway (WebSocket or gRPC, the same frames either way), authenticates once, reports
 * playback progress with every heartbeat, and answers progress and history queries over the same
 * connection. Everything under {@code io.playline.client.internal} is not API.
 */
@NullMarked
package io.playline.client;

import org.jspecify.annotations.NullMarked;
