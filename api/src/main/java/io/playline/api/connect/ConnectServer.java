package io.playline.api.connect;

import io.grpc.ServerServiceDefinition;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.playline.api.config.ApiHttpConfig;
import io.playline.node.loops.EventLoops;
import io.playline.node.admin.HttpBudget;
import io.playline.time.Time;
import java.net.InetSocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * The internal API's HTTP/1.1 port ({@code api.http.port}): the given service definitions — the
 * very ones the gRPC port serves, interceptors included — as the Connect protocol, within the
 * port's budgets ({@code api.http.max.connections}, {@code api.http.max.connections.per.address},
 * {@code api.http.request.timeout}, {@code
 * api.http.max.pipelined}, {@code api.http.call.timeout}; requests up to {@code frame.max.bytes},
 * the gRPC port's message limit; no reading while the client does not read its answers).
 * With TLS, the same certificate as the gRPC port and, with {@code api.tls.client.ca}, the same
 * client-certificate requirement. Runs on a node's event loops.
 */
public final class ConnectServer implements AutoCloseable {
  private static final int MAX_INITIAL_LINE = 4096;
  private static final int MAX_HEADERS = 8192;

  private final Channel channel;
  private final ChannelGroup connections;

  private ConnectServer(Channel channel, ChannelGroup connections) {
    this.channel = channel;
    this.connections = connections;
  }

  /**
   * Binds {@code bindHost}:{@code access.port()}, its timeouts passing by {@code time}; fails with the
   * bind's exception when the address is in use.
   */
  public static ConnectServer start(EventLoops loops, String bindHost, ApiHttpConfig access, int maxRequestBytes,
      @Nullable SslContext tls, MeterRegistry registry, Time time, ServerServiceDefinition... services)
      throws InterruptedException {
    ConnectRoutes routes = new ConnectRoutes(services);
    ConnectMetrics metrics = new ConnectMetrics(registry);
    HttpBudget budget = new HttpBudget("API HTTP", ConnectMetrics.REFUSED,
        new HttpBudget.Cap("api.http.max.connections", access.maxConnections()),
        new HttpBudget.Cap("api.http.max.connections.per.address", access.maxConnectionsPerAddress()),
        "api.http.request.timeout", access.requestTimeout(), registry, time);
    Gauge.builder("playline.api.http.connections", budget, HttpBudget::open)
        .description("Open connections on the internal API's HTTP port").register(registry);
    ChannelGroup connections = new DefaultChannelGroup("api-http", GlobalEventExecutor.INSTANCE);
    Channel channel = new ServerBootstrap()
        .group(loops.boss(), loops.workers())
        .channel(loops.serverChannelType())
        .option(ChannelOption.SO_BACKLOG, 1024)
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            if (!budget.admit(ch)) {
              return;
            }
            connections.add(ch);
            if (tls != null) {
              ch.pipeline().addLast(tls.newHandler(ch.alloc()));
            }
            ch.pipeline()
                .addLast(new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADERS, 8192))
                .addLast(new Aggregator(maxRequestBytes))
                .addLast(budget.deadline())
                .addLast(new ConnectHandler(routes, metrics, access.maxPipelined(), maxRequestBytes,
                    access.callTimeout().toMillis(), time));
          }
        })
        .bind(new InetSocketAddress(bindHost, access.port()))
        .sync()
        .channel();
    return new ConnectServer(channel, connections);
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) channel.localAddress();
  }

  /**
   * Stops accepting, then closes the open connections (their calls are cancelled; a client retries
   * elsewhere, and every method is safe to retry), so nothing reaches the node's write path after
   * the API stopped.
   */
  @Override
  public void close() {
    channel.close().awaitUninterruptibly();
    connections.close().awaitUninterruptibly(5, java.util.concurrent.TimeUnit.SECONDS);
  }

  /** Aggregates whole requests; one too large is handed on as {@link ConnectHandler.TooLarge} (answered, then closed). */
  private static final class Aggregator extends HttpObjectAggregator {
    Aggregator(int maxContentLength) {
      super(maxContentLength);
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
      ctx.fireChannelRead(ConnectHandler.TooLarge.INSTANCE);
    }

    /**
     * "100 Continue" for a body that fits; nothing otherwise: an over-size body is then refused in
     * request order ({@link ConnectHandler.TooLarge}) instead of the aggregator's own 413 written
     * ahead of earlier answers, and an unsupported expectation is ignored.
     */
    @Override
    protected @Nullable Object newContinueResponse(HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
      if (HttpUtil.is100ContinueExpected(start) && HttpUtil.getContentLength(start, -1L) <= maxContentLength) {
        return super.newContinueResponse(start, maxContentLength, pipeline);
      }
      return null;
    }
  }
}
