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
 * the I/O loops of the players' connections (WebSocket, client gRPC), the internal API's loops of
 * their own ({@link #api()}: a backend's page of history is decoded, queried and encoded there, never
 * in line with a player's heartbeats on a node that serves both), and one loop of its own for the
 * admin port, so that a metrics scrape (milliseconds of work) or an admin client's requests never
 * wait in line with a player's heartbeats, and {@code /livez} can answer while an I/O loop is stuck.
 * A group's threads start with its first connection: a node that serves no players (the api role)
 * runs no player loop. Native epoll where available, NIO otherwise.
 */
public final class EventLoops implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EventLoops.class);

  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final EventLoopGroup admin;
  private final @Nullable EventLoops api;
  private final EventLoop first;
  private final Class<? extends ServerChannel> serverChannelType;

  private EventLoops(EventLoopGroup boss, EventLoopGroup workers, EventLoopGroup admin, @Nullable EventLoops api,
      Class<? extends ServerChannel> type) {
    this.boss = boss;
    this.workers = workers;
    this.admin = admin;
    this.api = api;
    this.first = workers.next();
    this.serverChannelType = type;
  }

  /** {@link #create(int, int)} with the internal API on as many loops as the players. */
  public static EventLoops create(int workerThreads) {
    return create(workerThreads, workerThreads);
  }

  /**
   * Creates the groups; {@code workerThreads} ({@code io.threads}) and {@code apiThreads} ({@code
   * api.io.threads}) 0 mean one per core (not Netty's 2 x cores: the handlers never block, and every
   * extra loop is another thread a heartbeat may hop through).
   */
  public static EventLoops create(int workerThreads, int apiThreads) {
    boolean epoll = Epoll.isAvailable();
    if (epoll) {
      log.info("Using native epoll transport");
    } else {
      log.info("Native epoll unavailable ({}); using NIO", Epoll.unavailabilityCause().toString());
    }
    EventLoopGroup boss = group(epoll, 1, "playline-accept");
    EventLoopGroup admin = group(epoll, 1, "playline-admin");
    Class<? extends ServerChannel> type = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    // Thread names are measured by prefix (bench reads' player-loop CPU, from /proc, which keeps 15
    // characters of a name): keep these prefixes short.
    EventLoops api = new EventLoops(boss, group(epoll, threads(apiThreads), "playline-api"), admin, null, type);
    return new EventLoops(boss, group(epoll, threads(workerThreads), "playline-io"), admin, api, type);
  }

  private static int threads(int configured) {
    return configured <= 0 ? defaultWorkerThreads() : configured;
  }

  private static EventLoopGroup group(boolean epoll, int threads, String name) {
    DefaultThreadFactory factory = new DefaultThreadFactory(name, true);
    return epoll ? new EpollEventLoopGroup(threads, factory) : new NioEventLoopGroup(threads, factory);
  }

  /**
   * The same accept and admin loops with the internal API's I/O loops as {@link #workers()}: what
   * the API's servers bind on. Closed with this (closing the view itself does nothing).
   */
  public EventLoops api() {
    return api != null ? api : this;
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

  /** Shuts the groups down (the API's too), waiting at most a few seconds; nothing for {@link #api()}'s view. */
  @Override
  public void close() {
    if (api == null) {
      return;
    }
    List<EventLoopGroup> groups = List.of(boss, workers, api.workers, admin);
    for (EventLoopGroup g : groups) {
      g.shutdownGracefully(0, 2, TimeUnit.SECONDS);
    }
    for (EventLoopGroup g : groups) {
      g.terminationFuture().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
  }
}
