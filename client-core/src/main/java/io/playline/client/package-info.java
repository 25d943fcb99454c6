/**
 * The Playline player SDK's API: an {@link io.playline.client.AbstractPlaylineClient} holds one
 * persistent stream to a gateway, authenticates once, reports playback progress with every
 * heartbeat, and answers progress and history queries over the same connection. The wire is the
 * concrete client's: {@code PlaylineClient} (client-sdk: Netty WebSocket or gRPC) or {@code
 * io.playline.client.okhttp.OkHttpPlaylineClient} (client-okhttp: OkHttp's WebSocket, for Android).
 * Everything under {@code io.playline.client.internal} is not API.
 */
@NullMarked
package io.playline.client;

import org.jspecify.annotations.NullMarked;
