package io.playline.client.okhttp;

import io.playline.client.internal.ClientConfig;
import io.playline.client.internal.ClientRuntime;
import io.playline.client.internal.ExecutorLoop;
import io.playline.client.internal.Loop;
import io.playline.client.internal.Transport;
import java.util.concurrent.TimeUnit;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;

/**
 * A client on OkHttp: the session on an {@link ExecutorLoop} of its own, its connections on an
 * {@link OkHttpClient} (the app's, re-derived, or one of its own) with the connect timeout, no read
 * timeout (the session's heartbeat deadline finds a dead connection) and, with {@code
 * trustCertificates}, a trust manager of those CAs only. Created off the loop while the client is
 * built; {@link #shutdown} once.
 */
final class OkHttpRuntime implements ClientRuntime {
  private final ClientConfig config;
  private final OkHttpClient http;
  private final boolean ownsHttp;
  private final ExecutorLoop loop;

  /** @throws IllegalArgumentException when the trusted certificates are not PEM certificates */
  OkHttpRuntime(ClientConfig config, @Nullable OkHttpClient supplied) {
    this.config = config;
    OkHttpClient.Builder b = supplied != null ? supplied.newBuilder() : new OkHttpClient.Builder();
    b.connectTimeout(config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS).readTimeout(0, TimeUnit.MILLISECONDS);
    ClientConfig.Tls tls = config.tls();
    if (tls != null && tls.trustedCertificates() != null) {
      PemTrust.Trust trust = PemTrust.of(tls.trustedCertificates());
      b.sslSocketFactory(trust.socketFactory(), trust.trustManager());
    }
    this.http = b.build();
    this.ownsHttp = supplied == null;
    this.loop = new ExecutorLoop();
  }

  @Override
  public Loop loop() {
    return loop;
  }

  @Override
  public Transport transport(ClientConfig.Endpoint e) {
    HttpUrl url = new HttpUrl.Builder().scheme(config.tls() == null ? "http" : "https").host(e.host()).port(e.port())
        .encodedPath(config.webSocketPath()).build();
    return new OkHttpWebSocketTransport(http, url, loop);
  }

  @Override
  public void shutdown(long timeoutMs) {
    if (ownsHttp) {
      http.dispatcher().executorService().shutdown();
      http.connectionPool().evictAll();
    }
    loop.shutdown(timeoutMs);
  }
}
