package io.playline.client.okhttp;

import io.playline.client.internal.Loop;
import io.playline.client.internal.Transport;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.WebSocket;

/**
 * The player stream over OkHttp's WebSocket ({@code ws(s)://host:port/v1/stream}): one {@link
 * WebSocket} per connection, one binary message per frame, the same bytes as the Netty WebSocket
 * transport (docs/protocol.md). OkHttp reads and writes on its own threads; every event hops onto the
 * client's loop ({@link OkHttpConnection}). Every socket is tracked until it ends, so none outlives
 * {@link #shutdown}.
 *
 * <p>{@link #open} is called on the loop; {@link #shutdown} off it.
 */
final class OkHttpWebSocketTransport implements Transport {
  private final OkHttpClient http;
  private final Request request;
  private final Loop loop;
  private final Set<OkHttpConnection> live = ConcurrentHashMap.newKeySet();

  OkHttpWebSocketTransport(OkHttpClient http, HttpUrl url, Loop loop) {
    this.http = http;
    this.request = new Request.Builder().url(url).build();
    this.loop = loop;
  }

  @Override
  public Connection open(Listener listener) {
    OkHttpConnection conn = new OkHttpConnection(listener, loop, live::remove);
    live.add(conn);
    conn.attach(http.newWebSocket(request, conn.socketListener()));
    return conn;
  }

  @Override
  public int liveConnections() {
    return live.size();
  }

  @Override
  public void shutdown(long timeoutMs) {
    for (OkHttpConnection conn : live) {
      conn.cancel();
    }
    live.clear();
  }
}
