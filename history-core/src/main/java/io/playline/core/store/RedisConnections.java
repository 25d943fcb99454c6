package io.playline.core.store;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.DefaultEventLoopGroupProvider;
import io.lettuce.core.resource.NettyCustomizer;
import io.lettuce.core.resource.Transports;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.concurrent.EventExecutor;
import io.playline.core.config.ClusterTopologyConfig;
import io.playline.time.FixedDelay;
import io.playline.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process's Redis client (standalone or Cluster) and its connections: one shared
 * auto-flushing connection for queries and single commands, plus pipelining connections (auto
 * flush off) for writers that send a whole batch and flush once. Thread-safe; each pipelining
 * connection must be used by one thread at a time.
 *
 * <p><b>Redis Cluster.</b> The client follows topology changes ({@link ClusterTopologyConfig}):
 * after a master dies and its replica is promoted, commands to its slots fail fast (the node's
 * connection is disconnected and commands are rejected, not queued) until the next topology
 * refresh, then succeed again on the same connections. Cluster pipelines are flushed again every
 * {@value #PIPELINE_SWEEP_MS} ms on {@link #ioLoop()}: Lettuce writes a command for a node whose
 * connection is still being opened (the first command to a promoted replica) or that was
 * redirected ({@code MOVED}/{@code ASK}) only after its owner's {@code flushCommands()} ran, so
 * without the sweep it would wait for the owner's next flush, or time out.
 */
public final class RedisConnections implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RedisConnections.class);
  static final long PIPELINE_SWEEP_MS = 100;
  /** Reconnect attempts to a node after which its failure triggers a topology refresh. */
  private static final int RECONNECTS_BEFORE_REFRESH = 3;

  private final ClientResources resources;
  private final RedisClient client;
  private final RedisClusterClient clusterClient;
  private final List<StatefulConnection<byte[], byte[]>> opened = new ArrayList<>();
  private final RedisClusterAsyncCommands<byte[], byte[]> shared;
  private final EventExecutor ioLoop;
  /** The client's own I/O thread when no loop was lent; shut down by {@link #close()}. */
  private final @Nullable EventLoopGroup ownLoop;
  /** Cluster pipelines the sweep flushes; empty in standalone mode. */
  private final List<StatefulConnection<byte[], byte[]>> clusterPipelines = new CopyOnWriteArrayList<>();
  private final Time time;
  private @Nullable FixedDelay sweep;

  private RedisConnections(String uri, boolean cluster, Duration timeout, @Nullable EventLoop loop,
      ClusterTopologyConfig topology, Time time, @Nullable RedisConnections shareWith) {
    this.time = time;
    // Lettuce's own per-command latency histograms cost CPU on every reply and nothing reads them
    // (Playline meters its batches itself).
    // One I/O thread: Redis traffic is a few large pipelined writes, and writers that batch on
    // that thread (ioLoop) reach the socket and get their answers without a thread hop. Given a
    // loop (a gateway's I/O loop), the connections live there instead of on a thread of their own.
    // Flushes on a connection are coalesced into one per event-loop turn: commands issued from
    // callbacks of one batch's answer (e.g. the push registry's lookups for its users) reach the
    // socket in one write instead of one write each.
    DefaultClientResources.Builder builder = DefaultClientResources.builder().computationThreadPoolSize(2)
        .commandLatencyRecorder(CommandLatencyRecorder.disabled()).nettyCustomizer(new NettyCustomizer() {
          @Override
          public void afterChannelInitialized(Channel channel) {
            channel.pipeline().addFirst(new FlushConsolidationHandler(
                FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true));
          }
        });
    // Without a loop the client gets a one-thread group of its own, lent to Lettuce like a
    // borrowed loop: Lettuce's own provider starts at least two threads and spreads connections
    // over them, so work run on ioLoop would reach a connection living on the other thread
    // through a task per command (one socket write each, flushes no longer coalesced).
    ownLoop = loop != null ? null
        : (EventLoopGroup) DefaultEventLoopGroupProvider.createEventLoopGroup(Transports.eventLoopGroupClass(), 1);
    EventLoop io = loop != null ? loop : ownLoop.next();
    builder.eventLoopGroupProvider(new BorrowedEventLoop(io));
    if (shareWith != null) {
      // Lettuce leaves a timer and computation threads it was given running when it shuts down.
      builder.timer(shareWith.resources.timer()).eventExecutorGroup(shareWith.resources.eventExecutorGroup());
    }
    resources = builder.build();
    ioLoop = io;
    RedisURI redisUri = RedisURI.create(uri);
    redisUri.setTimeout(timeout);
    TimeoutOptions timeouts = TimeoutOptions.enabled(timeout);
    if (cluster) {
      client = null;
      clusterClient = RedisClusterClient.create(resources, redisUri);
      clusterClient.setOptions(clusterOptions(timeouts, topology));
    } else {
      clusterClient = null;
      client = RedisClient.create(resources, redisUri);
      // The command stack's hash index only speeds up removing commands out of order (after a
      // failed write); the plain stack is cheaper for every command.
      client.setOptions(ClientOptions.builder().timeoutOptions(timeouts).useHashIndexQueue(false)
          .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
    }
    RedisClusterAsyncCommands<byte[], byte[]> first;
    try {
      first = commands(connect());
    } catch (RuntimeException e) {
      close(); // the client, its resources and its own loop, which nothing else would close
      throw e;
    }
    shared = first;
  }

  /**
   * Follows failovers: refreshes the topology periodically and on every adaptive trigger, asking
   * every known node (not only the seed, which may be the dead one), and closes connections to
   * nodes that left. Node membership stays validated: a promoted replica was in the view already,
   * and a redirect to a node not yet known triggers a refresh (UNKNOWN_NODE) instead of connecting
   * wherever a reply points.
   */
  private static ClusterClientOptions clusterOptions(TimeoutOptions timeouts, ClusterTopologyConfig topology) {
    ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
        .enablePeriodicRefresh(topology.refreshPeriod())
        .enableAllAdaptiveRefreshTriggers()
        .adaptiveRefreshTriggersTimeout(topology.adaptiveRefreshTimeout())
        .refreshTriggersReconnectAttempts(RECONNECTS_BEFORE_REFRESH)
        .dynamicRefreshSources(true)
        .closeStaleConnections(true)
        .build();
    return ClusterClientOptions.builder().timeoutOptions(timeouts)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .topologyRefreshOptions(refresh)
        .validateClusterNodeMembership(true)
        .build();
  }

  /**
   * Connects to {@code uri} ({@code redis://host:port}); with {@code cluster} the URI is one
   * seed node of a Redis Cluster. Blocks until connected: call at start-up, not on an event loop.
   * For tools and tests: a cluster's pipeline sweep runs on {@link Time#SYSTEM}.
   */
  public static RedisConnections connect(String uri, boolean cluster, Duration timeout) {
    return connect(uri, cluster, timeout, null);
  }

  /**
   * As {@link #connect(String, boolean, Duration)}, with every connection's I/O on {@code loop}
   * (owned by the caller, who shuts it down after {@link #close()}); null gives the client an
   * I/O thread of its own.
   */
  public static RedisConnections connect(String uri, boolean cluster, Duration timeout, @Nullable EventLoop loop) {
    return connect(uri, cluster, timeout, loop, ClusterTopologyConfig.defaults(), Time.SYSTEM);
  }

  /**
   * As {@link #connect(String, boolean, Duration, EventLoop)}, following the cluster's topology
   * as {@code topology} says (ignored without {@code cluster}), sweeping a cluster's pipelines by
   * the process's {@code time}: how a node or job connects.
   */
  public static RedisConnections connect(String uri, boolean cluster, Duration timeout, @Nullable EventLoop loop,
      ClusterTopologyConfig topology, Time time) {
    return connect(uri, cluster, timeout, loop, topology, time, null);
  }

  /**
   * As {@link #connect(String, boolean, Duration, EventLoop, ClusterTopologyConfig, Time)}; with
   * {@code shareWith}, the new client uses that one's timer and computation threads (command
   * timeouts, Lettuce's events) instead of starting its own, so another client per event loop costs
   * its connections only: close it before {@code shareWith}.
   */
  public static RedisConnections connect(String uri, boolean cluster, Duration timeout, @Nullable EventLoop loop,
      ClusterTopologyConfig topology, Time time, @Nullable RedisConnections shareWith) {
    RedisConnections c = new RedisConnections(uri, cluster, timeout, loop, topology, time, shareWith);
    try {
      c.loadScripts();
    } catch (RuntimeException e) {
      c.close();
      throw e;
    }
    log.info("Connected to Redis {}{}", uri, cluster ? " (cluster)" : "");
    return c;
  }

  private synchronized StatefulConnection<byte[], byte[]> connect() {
    StatefulConnection<byte[], byte[]> c = client != null
        ? client.connect(ByteArrayCodec.INSTANCE)
        : clusterClient.connect(ByteArrayCodec.INSTANCE);
    opened.add(c);
    return c;
  }

  /** The one event loop all of this process's Redis connections do their I/O on (and complete commands on). */
  public EventExecutor ioLoop() {
    return ioLoop;
  }

  /** The shared auto-flushing commands. */
  public RedisClusterAsyncCommands<byte[], byte[]> shared() {
    return shared;
  }

  /**
   * A new connection with auto flush off: queue commands, then {@link
   * StatefulConnection#flushCommands()}. In Cluster mode {@link #ioLoop()} also flushes it every
   * {@value #PIPELINE_SWEEP_MS} ms (see the class comment), which may split a batch queued from
   * another thread over two writes; queued from {@link #ioLoop()} it never does.
   */
  public synchronized StatefulConnection<byte[], byte[]> newPipeline() {
    StatefulConnection<byte[], byte[]> c = connect();
    c.setAutoFlushCommands(false);
    if (clusterClient != null) {
      clusterPipelines.add(c);
      if (sweep == null) {
        sweep = FixedDelay.start(time, ioLoop, this::flushClusterPipelines, PIPELINE_SWEEP_MS, PIPELINE_SWEEP_MS,
            TimeUnit.MILLISECONDS);
      }
    }
    return c;
  }

  /** Flushes what Lettuce queued on cluster pipelines after their owners' last flush. */
  private void flushClusterPipelines() {
    for (StatefulConnection<byte[], byte[]> c : clusterPipelines) {
      if (c.isOpen()) {
        c.flushCommands();
      } else {
        clusterPipelines.remove(c);
      }
    }
  }

  /**
   * A new dedicated pub/sub connection (a cluster pub/sub connection in Cluster mode, where
   * PUBLISH is broadcast to every node), closed with this object. Lettuce resubscribes its
   * channels after a reconnect. Blocks while connecting: call at start-up, not on an event loop.
   */
  public synchronized StatefulRedisPubSubConnection<byte[], byte[]> connectPubSub() {
    StatefulRedisPubSubConnection<byte[], byte[]> c = client != null
        ? client.connectPubSub(ByteArrayCodec.INSTANCE)
        : clusterClient.connectPubSub(ByteArrayCodec.INSTANCE);
    opened.add(c);
    return c;
  }

  /** The async command API of a connection from this object. */
  public static RedisClusterAsyncCommands<byte[], byte[]> commands(StatefulConnection<byte[], byte[]> c) {
    if (c instanceof StatefulRedisConnection<byte[], byte[]> single) {
      return single.async();
    }
    return ((StatefulRedisClusterConnection<byte[], byte[]>) c).async();
  }

  private void loadScripts() {
    for (RedisScript script : List.of(RedisScript.WRITE_HISTORY, RedisScript.FIRST_TODAY, RedisScript.CLEAR_RECOVERY)) {
      shared.scriptLoad(script.body().getBytes(java.nio.charset.StandardCharsets.UTF_8))
          .toCompletableFuture().join();
    }
  }

  @Override
  public synchronized void close() {
    if (sweep != null) {
      sweep.cancel();
      sweep = null;
    }
    clusterPipelines.clear();
    for (StatefulConnection<byte[], byte[]> c : opened) {
      // Their owners close pipelines and subscriptions first (a second close is a Lettuce WARN); a
      // connection down and reconnecting is not open either, and the client's shutdown closes it.
      if (c.isOpen()) {
        c.close();
      }
    }
    opened.clear();
    if (client != null) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    } else {
      clusterClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    resources.shutdown(0, 2, TimeUnit.SECONDS);
    if (ownLoop != null) {
      ownLoop.shutdownGracefully(0, 2, TimeUnit.SECONDS);
    }
  }
}
