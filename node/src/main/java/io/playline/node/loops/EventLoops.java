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
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Netty event loop groups a node uses for every server it runs: one accept loop for every port,
 * the I/O loops of the players' and backends' connections (WebSocket, client gRPC, internal gRPC),
 * and one loop of its own for the admin port, so that a metrics scrape (milliseconds of work) or an
 * admin client's requests never wait in line with a player's heartbeats, and {@code /livez} can
 * answer while an I/O loop is stuck. Native epoll where available, NIO otherwise.
 */
public final class EventLoops implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EventLoops.class);

  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final EventLoopGroup admin;
  private final EventLoop first;
  private final Class<? extends ServerChannel> serverChannelType;

  private EventLoops(EventLoopGroup boss, EventLoopGroup workers, EventLoopGroup admin,
      Class<? extends ServerChannel> type) {
    this.boss = boss;
    this.workers = workers;
    this.admin = admin;
    this.first = workers.next();
    this.serverChannelType = type;
  }

  /**
   * Creates the groups; {@code workerThreads} 0 means one per core (not Netty's 2 x cores: the
   * handlers never block, and every extra loop is another thread a heartbeat may hop through).
   */
  public static EventLoops create(int workerThreads) {
    if (workerThreads <= 0) {
      workerThreads = defaultWorkerThreads();
    }
    if (Epoll.isAvailable()) {
      log.info("Using native epoll transport");
      return new EventLoops(
          new EpollEventLoopGroup(1, new DefaultThreadFactory("playline-accept", true)),
          new EpollEventLoopGroup(workerThreads, new DefaultThreadFactory("playline-io", true)),
          new EpollEventLoopGroup(1, new DefaultThreadFactory("playline-admin", true)),
          EpollServerSocketChannel.class);
    }
    log.info("Native epoll unavailable ({}); using NIO", Epoll.unavailabilityCause().toString());
    return new EventLoops(
        new NioEventLoopGroup(1, new DefaultThreadFactory("playline-accept", true)),
        new NioEventLoopGroup(workerThreads, new DefaultThreadFactory("playline-io", true)),
        new NioEventLoopGroup(1, new DefaultThreadFactory("playline-admin", true)),
        NioServerSocketChannel.class);
  }

  /** The worker loops {@code io.threads = 0} gives: one per core. */
  public static int defaultWorkerThreads() {
    return Runtime.getRuntime().availableProcessors();
  }

  public EventLoopGroup boss() {
    return boss;
  }

  public EventLoopGroup workers() {
    return workers;
  }

  /** The admin port's connections' loop: one thread, none of the workers. */
  public EventLoopGroup admin() {
    return admin;
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

  /** Shuts the groups down, waiting at most a few seconds. */
  @Override
  public void close() {
    for (EventLoopGroup g : List.of(boss, workers, admin)) {
      g.shutdownGracefully(0, 2, TimeUnit.SECONDS);
    }
    for (EventLoopGroup g : List.of(boss, workers, admin)) {
      g.terminationFuture().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
  }
}
