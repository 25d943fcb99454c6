package io.playline.client.okhttp;

import io.playline.client.AbstractPlaylineClientBuilder;
import io.playline.client.internal.SystemClock;
import java.util.Objects;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;

/**
 * Settings of an {@link OkHttpPlaylineClient}; obtain one from {@link
 * OkHttpPlaylineClient#builder()}. The settings every client has are {@link
 * AbstractPlaylineClientBuilder}'s (the endpoint is the gateway's WebSocket port, 8080 by
 * default); this one adds the app's {@link OkHttpClient}. Not thread-safe; build on one thread.
 */
public final class OkHttpPlaylineClientBuilder extends AbstractPlaylineClientBuilder<OkHttpPlaylineClientBuilder> {
  private @Nullable OkHttpClient http;

  OkHttpPlaylineClientBuilder() {}

  @Override
  protected OkHttpPlaylineClientBuilder self() {
    return this;
  }

  /**
   * Connects through the app's {@code client} (sharing its dispatcher and connection pool, and
   * its interceptors, proxy and certificate pinning); the client derives its own settings from it
   * ({@link OkHttpClient#newBuilder()}) and never shuts it down. By default the client has an
   * OkHttpClient of its own, shut down by {@link OkHttpPlaylineClient#close()}.
   */
  public OkHttpPlaylineClientBuilder okHttpClient(OkHttpClient client) {
    this.http = Objects.requireNonNull(client, "okHttpClient");
    return this;
  }

  @Override
  public OkHttpPlaylineClient build() {
    return new OkHttpPlaylineClient(config(SystemClock.wall()), http);
  }
}
