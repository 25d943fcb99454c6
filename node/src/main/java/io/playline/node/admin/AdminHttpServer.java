package io.playline.node.admin;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.playline.node.loops.EventLoops;
import io.playline.time.Time;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin HTTP port (default 9100): metrics, liveness and readiness for operators and probes,
 * within the port's budgets ({@link HttpBudget}: {@code admin.max.connections}, {@code
 * admin.request.timeout}). Warns at start when it is reachable beyond loopback with an open {@code
 * /metrics}.
 */
public final class AdminHttpServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AdminHttpServer.class);
  private static final int MAX_REQUEST_BYTES = 16 * 1024;

  private final Channel channel;

  private AdminHttpServer(Channel channel) {
    this.channel = channel;
  }

  /**
   * Binds and starts serving on {@code loops}' admin loop; {@code /livez} checks their worker loops.
   * Its timeouts pass by {@code time}. Fails with a bind exception when the address is in use.
   */
  public static AdminHttpServer start(EventLoops loops, AdminConfig access, int port, PrometheusMeterRegistry registry,
      Readiness readiness, Time time) throws InterruptedException {
    return start(loops, loops.workers(), access, port, registry, readiness, time);
  }

  /** As above, with {@code /livez} checking {@code watched} instead. */
  static AdminHttpServer start(EventLoops loops, EventLoopGroup watched, AdminConfig access, int port,
      PrometheusMeterRegistry registry, Readiness readiness, Time time) throws InterruptedException {
    InetSocketAddress address = new InetSocketAddress(access.bindHost(), port);
    AdminHttpHandler handler = new AdminHttpHandler(registry, readiness, watched, access, time);
    HttpBudget budget = HttpBudget.admin(access, registry, time);
    readiness.bindTo(registry);
    Channel channel = new ServerBootstrap()
        .group(loops.boss(), loops.admin())
        .channel(loops.serverChannelType())
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            if (!budget.admit(ch)) {
              return;
            }
            ch.pipeline()
                .addLast(new HttpServerCodec())
                .addLast(new HttpObjectAggregator(MAX_REQUEST_BYTES))
                .addLast(budget.deadline())
                .addLast(handler);
          }
        })
        .bind(address)
        .sync()
        .channel();
    AdminHttpServer server = new AdminHttpServer(channel);
    if (access.token() == null && !server.address().getAddress().isLoopbackAddress()) {
      log.warn("The admin port {} is reachable beyond loopback and /metrics answers anyone: set admin.token "
          + "(PLAYLINE_ADMIN_TOKEN, at least {} characters), or admin.bind.host=127.0.0.1", server.address(),
          AdminConfig.MIN_TOKEN_CHARS);
    }
    return server;
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) channel.localAddress();
  }

  @Override
  public void close() {
    channel.close().awaitUninterruptibly();
  }
}
