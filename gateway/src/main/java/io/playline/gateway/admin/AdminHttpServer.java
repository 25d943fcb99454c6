package io.playline.gateway.admin;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.playline.gateway.EventLoops;
import java.net.InetSocketAddress;

/** The admin HTTP port (default 9100): metrics, liveness and readiness for operators and probes. */
public final class AdminHttpServer implements AutoCloseable {
  private static final int MAX_REQUEST_BYTES = 16 * 1024;
  private static final int READ_TIMEOUT_SECONDS = 30;

  private final Channel channel;

  private AdminHttpServer(Channel channel) {
    this.channel = channel;
  }

  /**
   * Binds and starts serving on {@code loops}, whose worker loops {@code /livez} checks; fails with
   * a bind exception when the address is in use.
   */
  public static AdminHttpServer start(EventLoops loops, AdminAccess access, int port, PrometheusMeterRegistry registry,
      Readiness readiness) throws InterruptedException {
    return start(loops, loops.workers(), access, port, registry, readiness);
  }

  /** As above, with {@code /livez} checking {@code watched} instead. */
  static AdminHttpServer start(EventLoops loops, EventLoopGroup watched, AdminAccess access, int port,
      PrometheusMeterRegistry registry, Readiness readiness) throws InterruptedException {
    InetSocketAddress address = new InetSocketAddress(access.bindHost(), port);
    AdminHttpHandler handler = new AdminHttpHandler(registry, readiness, watched, access);
    readiness.bindTo(registry);
    Channel channel = new ServerBootstrap()
        .group(loops.boss(), loops.workers())
        .channel(loops.serverChannelType())
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline()
                .addLast(new ReadTimeoutHandler(READ_TIMEOUT_SECONDS))
                .addLast(new HttpServerCodec())
                .addLast(new HttpObjectAggregator(MAX_REQUEST_BYTES))
                .addLast(handler);
          }
        })
        .bind(address)
        .sync()
        .channel();
    return new AdminHttpServer(channel);
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) channel.localAddress();
  }

  @Override
  public void close() {
    channel.close().awaitUninterruptibly();
  }
}
