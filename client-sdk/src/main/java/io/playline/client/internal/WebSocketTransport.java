package io.playline.client.internal;

import io.netty.handler.ssl.SslContext;
import org.jspecify.annotations.Nullable;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketClientHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketClientHandshakerFactory;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketVersion;
import java.net.URI;
import java.util.concurrent.TimeUnit;

/**
 * The player stream over WebSocket ({@code ws://host:port/v1/stream}): one Netty channel per
 * connection on the client's event loop, HTTP upgrade by a {@link WebSocketClientHandshaker}, then
 * one binary message per frame ({@link WebSocketStreamHandler}). Every channel is tracked until it
 * closes, so none outlives {@link #shutdown}.
 *
 * <p>{@link #open} is called on the loop; {@link #shutdown} off it.
 */
public final class WebSocketTransport implements Transport {
  /** Largest server message accepted (a history page of 100 records is a few KiB). */
  static final int MAX_FRAME_BYTES = 1 << 20;
  private static final int MAX_UPGRADE_RESPONSE_BYTES = 8 * 1024;

  private final EventLoop loop;
  private final URI uri;
  private final int connectTimeoutMs;
  private final ChannelGroup channels;
  private final @Nullable SslContext tls;

  /**
   * @param loop the client's event loop (a NIO loop): every channel is registered on it
   * @param connectTimeoutMs TCP connect and upgrade handshake timeout
   * @param tls wss with this client context (checking the server's name), or null for ws
   */
  public WebSocketTransport(EventLoop loop, String host, int port, String path, int connectTimeoutMs,
      @Nullable SslContext tls) {
    this.loop = loop;
    this.tls = tls;
    this.uri = URI.create((tls == null ? "ws://" : "wss://") + hostForUri(host) + ":" + port + path);
    this.connectTimeoutMs = connectTimeoutMs;
    this.channels = new DefaultChannelGroup("playline-ws", loop);
  }

  private static String hostForUri(String host) {
    return host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
  }

  @Override
  public Connection open(Listener listener) {
    WebSocketClientHandshaker handshaker = WebSocketClientHandshakerFactory.newHandshaker(
        uri, WebSocketVersion.V13, null, false, EmptyHttpHeaders.INSTANCE, MAX_FRAME_BYTES);
    WebSocketStreamHandler handler = new WebSocketStreamHandler(listener);
    ChannelFuture connect = new Bootstrap()
        .group(loop)
        .channel(NioSocketChannel.class)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMs)
        .option(ChannelOption.TCP_NODELAY, true)
        .handler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            if (tls != null) {
              // host and port give SNI and the name the server's certificate must carry
              ch.pipeline().addLast(tls.newHandler(ch.alloc(), uri.getHost(), uri.getPort()));
            }
            ch.pipeline()
                .addLast(new HttpClientCodec())
                .addLast(new HttpObjectAggregator(MAX_UPGRADE_RESPONSE_BYTES))
                // Close frames are not handled here: the handler reads their 4000+code first.
                .addLast(new WebSocketClientProtocolHandler(handshaker, false, true, connectTimeoutMs))
                .addLast(new WebSocketFrameAggregator(MAX_FRAME_BYTES))
                .addLast(handler);
          }
        })
        .connect(uri.getHost(), uri.getPort());
    Channel channel = connect.channel();
    channels.add(channel);
    handler.attach(channel);
    connect.addListener(f -> {
      if (!f.isSuccess()) {
        // Hop so the session never hears about a connection from inside open().
        loop.execute(() -> handler.failed(f.cause()));
      }
    });
    return handler;
  }

  @Override
  public int liveConnections() {
    return channels.size();
  }

  @Override
  public void shutdown(long timeoutMs) {
    channels.close().awaitUninterruptibly(timeoutMs, TimeUnit.MILLISECONDS);
  }
}
