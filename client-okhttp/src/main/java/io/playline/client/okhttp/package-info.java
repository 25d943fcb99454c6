/**
 * The Playline player SDK over OkHttp's WebSocket, for Android: {@link
 * io.playline.client.okhttp.OkHttpPlaylineClient} is the same client as the Netty SDK's {@code
 * PlaylineClient} (both are {@link io.playline.client.AbstractPlaylineClient}s), carrying the same
 * binary frames on {@code ws(s)://host:port/v1/stream}, with no Netty or gRPC on the classpath.
 */
@NullMarked
package io.playline.client.okhttp;

import org.jspecify.annotations.NullMarked;
