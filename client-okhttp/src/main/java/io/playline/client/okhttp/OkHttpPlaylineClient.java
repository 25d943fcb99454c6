package io.playline.client.okhttp;

import io.playline.client.AbstractPlaylineClient;
import io.playline.client.internal.ClientConfig;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;

/**
 * A player's persistent stream to a Playline gateway over OkHttp's WebSocket: the client an
 * Android app ships (OkHttp is already in nearly every app; no Netty, no gRPC). Everything it does
 * is {@link AbstractPlaylineClient}'s, with the same frames as the Netty SDK's WebSocket. Its state
 * lives on one thread of its own ({@code playline-client}); OkHttp's threads only read and write
 * the socket and hand each event to it. Listeners run there unless a callback executor is set
 * (on Android, e.g. the main thread's executor).
 */
public final class OkHttpPlaylineClient extends AbstractPlaylineClient {
  OkHttpPlaylineClient(ClientConfig config, @Nullable OkHttpClient http) {
    super(config, new OkHttpRuntime(config, http));
  }

  /** A builder; {@code endpoint}, {@code tokenSupplier} and {@code deviceId} are required. */
  public static OkHttpPlaylineClientBuilder builder() {
    return new OkHttpPlaylineClientBuilder();
  }
}
