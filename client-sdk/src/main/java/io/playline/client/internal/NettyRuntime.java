package io.playline.client.internal;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.playline.client.TransportKind;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A client on Netty: one event loop (of a one-thread group of its own, or of the app's group,
 * which it then leaves running) carries both the session and its connections, WebSocket or gRPC,
 * TLS contexts built once. Created off the loop while the client is built; {@link #shutdown}
 * once.
 */
public final class NettyRuntime implements ClientRuntime {
  private final ClientConfig config;
  private final TransportKind kind;
  private final EventLoopGroup group;
  private final boolean ownsGroup;
  private final EventLoop eventLoop;
  private final NettyLoop loop;
  private final @Nullable SslContext tls;

  /**
   * @param group the app's NIO group, or null for a one-thread group of the client's own
   * @throws IllegalArgumentException when the trusted certificates are not PEM certificates
   */
  public NettyRuntime(ClientConfig config, TransportKind kind, @Nullable EventLoopGroup group) {
    this.config = config;
    this.kind = kind;
    this.tls = kind == TransportKind.WEBSOCKET ? ClientTls.webSocket(config.tls()) : ClientTls.grpc(config.tls());
    this.ownsGroup = group == null;
    this.group = group != null ? group : new NioEventLoopGroup(1, new DefaultThreadFactory("playline-client", true));
    this.eventLoop = this.group.next();
    this.loop = new NettyLoop(eventLoop);
  }

  @Override
  public Loop loop() {
    return loop;
  }

  @Override
  public Transport transport(ClientConfig.Endpoint e) {
    return switch (kind) {
      case WEBSOCKET -> new WebSocketTransport(eventLoop, e.host(), e.port(), config.webSocketPath(),
          (int) Math.min(Integer.MAX_VALUE, config.connectTimeout().toMillis()), tls);
      case GRPC -> new GrpcTransport(eventLoop, e.host(), e.port(), tls);
    };
  }

  @Override
  public void shutdown(long timeoutMs) {
    if (!ownsGroup) {
      return;
    }
    var terminated = group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    if (timeoutMs > 0) {
      terminated.awaitUninterruptibly(timeoutMs + 3_000, TimeUnit.MILLISECONDS);
    }
  }
}
