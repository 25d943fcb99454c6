package io.playline.bench.heartbeats.baseline;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.playline.node.loops.EventLoops;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The protocol ceiling: a bare Netty WebSocket server on {@code /v1/stream} that sends every
 * binary frame straight back, with the same transport, event loop count and upgrade/decoder
 * setup as the gateway's WebSocket pipeline but no session, auth, batching or storage. The
 * generator takes the echoed heartbeat as its ack. Thread-safe; handlers are confined to their
 * channel's event loop.
 */
public final class EchoServer implements AutoCloseable {
  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final Channel channel;
  private final int ioThreads;

  private EchoServer(EventLoopGroup boss, EventLoopGroup workers, Channel channel, int ioThreads) {
    this.boss = boss;
    this.workers = workers;
    this.channel = channel;
    this.ioThreads = ioThreads;
  }

  /**
   * Binds {@code address} with {@code ioThreads} workers (0 = one per core, as a gateway's default
   * {@code io.threads}: not Netty's 2 x cores, which gave the echo twice the gateway's loops).
   */
  public static EchoServer start(InetSocketAddress address, int ioThreads) throws InterruptedException {
    if (ioThreads <= 0) {
      ioThreads = EventLoops.defaultWorkerThreads();
    }
    boolean epoll = Epoll.isAvailable();
    EventLoopGroup boss = epoll ? new EpollEventLoopGroup(1, new DefaultThreadFactory("echo-accept", true))
        : new NioEventLoopGroup(1, new DefaultThreadFactory("echo-accept", true));
    EventLoopGroup workers = epoll ? new EpollEventLoopGroup(ioThreads, new DefaultThreadFactory("echo-io", true))
        : new NioEventLoopGroup(ioThreads, new DefaultThreadFactory("echo-io", true));
    WebSocketServerProtocolConfig config = WebSocketServerProtocolConfig.newBuilder()
        .websocketPath("/v1/stream")
        .handleCloseFrames(true)
        .dropPongFrames(true)
        .decoderConfig(WebSocketDecoderConfig.newBuilder().maxFramePayloadLength(64 * 1024).allowExtensions(false).build())
        .build();
    Channel ch = new ServerBootstrap()
        .group(boss, workers)
        .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
        .option(ChannelOption.SO_BACKLOG, 4096)
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel c) {
            c.pipeline()
                .addLast(new HttpServerCodec())
                .addLast(new HttpObjectAggregator(8 * 1024))
                .addLast(new WebSocketServerProtocolHandler(config))
                .addLast(new Echo());
          }
        })
        .bind(address)
        .sync()
        .channel();
    return new EchoServer(boss, workers, ch, ioThreads);
  }

  /** Its I/O loops. */
  public int ioThreads() {
    return ioThreads;
  }

  public int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  @Override
  public void close() {
    channel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    boss.terminationFuture().awaitUninterruptibly(5, TimeUnit.SECONDS);
    workers.terminationFuture().awaitUninterruptibly(5, TimeUnit.SECONDS);
  }

  /** Sends each binary frame back unchanged. */
  private static final class Echo extends SimpleChannelInboundHandler<BinaryWebSocketFrame> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, BinaryWebSocketFrame frame) {
      ctx.writeAndFlush(new BinaryWebSocketFrame(frame.content().retain()), ctx.voidPromise());
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
