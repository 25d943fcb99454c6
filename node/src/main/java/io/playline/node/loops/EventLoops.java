package io.playline.node.loops;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one pair of Netty event loop groups a node uses for every server it runs
 * (WebSocket, client gRPC, internal gRPC, admin HTTP): native epoll where available, NIO
 * otherwise.
 */
public final class EventLoops implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EventLoops.class);

  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final EventLoop first;
  private final Class<? extends ServerChannel> serverChannelType;

  private EventLoops(EventLoopGroup boss, EventLoopGroup workers, Class<? extends ServerChannel> type) {
    this.boss = boss;
    this.workers = workers;
    this.first = workers.next();
    this.serverChannelType = type;
  }

  /**
   * Creates the groups; {@code workerThreads} 0 means one per core (not Netty's 2 x cores: the
   * handlers never block, and every extra loop is another thread a heartbeat may hop through).
   */
  public static EventLoops create(int workerThreads) {
    if (workerThreads <= 0) {
      workerThreads = Runtime.getRuntime().availableProcessors();
    }
    if (Epoll.isAvailable()) {
      log.info("Using native epoll transport");
      return new EventLoops(
          new EpollEventLoopGroup(1, new DefaultThreadFactory("playline-accept", true)),
          new EpollEventLoopGroup(workerThreads, new DefaultThreadFactory("playline-io", true)),
          EpollServerSocketChannel.class);
    }
    log.info("Native epoll unavailable ({}); using NIO", Epoll.unavailabilityCause().toString());
    return new EventLoops(
        new NioEventLoopGroup(1, new DefaultThreadFactory("playline-accept", true)),
        new NioEventLoopGroup(workerThreads, new DefaultThreadFactory("playline-io", true)),
        NioServerSocketChannel.class);
  }

  public EventLoopGroup boss() {
    return boss;
  }

  public EventLoopGroup workers() {
    return workers;
  }

  /** One worker loop, always the same: where a process puts its Redis client to share a thread with connections. */
  public EventLoop first() {
    return first;
  }

  /**
   * The loop a process hands its Redis client ({@code RedisConnections.connect(..., loop)}):
   * {@link #first()} when {@code shared} ({@code io.redis.shared}), else null (a thread of its own).
   */
  public @Nullable EventLoop redisLoop(boolean shared) {
    return shared ? first : null;
  }

  public Class<? extends ServerChannel> serverChannelType() {
    return serverChannelType;
  }

  /** Shuts both groups down, waiting at most a few seconds. */
  @Override
  public void close() {
    boss.shutdownGracefully(0, 2, TimeUnit.SECONDS);
    workers.shutdownGracefully(0, 2, TimeUnit.SECONDS);
    boss.terminationFuture().awaitUninterruptibly(5, TimeUnit.SECONDS);
    workers.terminationFuture().awaitUninterruptibly(5, TimeUnit.SECONDS);
  }
}
