package io.playline.bench.load;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.playline.gateway.session.JwtTokens;
import io.playline.time.Time;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One process's share of the load: opens {@code spec.connections()} player connections at {@code
 * spec.connectRate()} per second (at most {@link #MAX_PENDING} handshakes at once) from a
 * connector thread, authenticates each with a freshly minted token, and paces heartbeats per
 * event loop ({@link Pacer}).
 *
 * <p>Thread-safe: control methods may be called from any thread; players live on the loops.
 */
public final class LoadGenerator implements Fleet, Players {
  /**
   * Handshakes (TCP + upgrade + auth) in progress at once: within the node's {@code
   * connection.max.unproven.per.address} (256), as one address's players are.
   */
  static final int MAX_PENDING = 256;
  private static final Duration TOKEN_TTL = Duration.ofHours(6);
  private static final int CONNECT_TIMEOUT_MS = 10_000;

  private final LoadSpec spec;
  private final @Nullable PageQueries queries;
  private final LoadStats stats = new LoadStats();
  private final EventLoopGroup group;
  private final boolean epoll;
  private final Map<EventExecutor, Pacer> pacers = new HashMap<>();
  private final Player[] players;
  private final Semaphore pending = new Semaphore(MAX_PENDING);
  private final Map<URI, byte[]> upgradeRequests = new HashMap<>();
  private final @Nullable GrpcLinks grpc;
  private final Thread connector;
  private final @Nullable String today;
  private volatile boolean closing;
  private volatile int connectLimit = Integer.MAX_VALUE;
  // Rate control: perPlayerRate() ramps linearly from rampFrom to rampTo over [rampStart, rampStart + rampNanos].
  private volatile double rampFrom;
  private volatile double rampTo;
  private volatile long rampStart;
  private volatile long rampNanos = 1;

  private LoadGenerator(LoadSpec spec, @Nullable PageQueries queries) {
    this.spec = spec;
    this.queries = queries;
    this.epoll = Epoll.isAvailable();
    DefaultThreadFactory threads = new DefaultThreadFactory("bench-io", true);
    this.group = epoll ? new EpollEventLoopGroup(spec.ioThreads(), threads)
        : new NioEventLoopGroup(spec.ioThreads(), threads);
    for (EventExecutor e : group) {
      Pacer pacer = new Pacer((EventLoop) e, this::perPlayerRate, spec.intervalMinMs(), spec.intervalMaxMs());
      pacers.put(e, pacer);
      pacer.start();
    }
    this.players = new Player[spec.connections()];
    for (URI t : spec.targets()) {
      upgradeRequests.put(t, WsClientHandler.upgradeRequest(t.getHost(), t.getPort(), t.getPath()));
    }
    this.grpc = spec.transport().equals("grpc") ? new GrpcLinks(group, epoll) : null;
    this.today = spec.flagMode() == LoadSpec.FlagMode.TODAY
        ? LocalDate.ofInstant(Time.SYSTEM.instant(), spec.zone()).toString() : null;
    this.connector = new Thread(this::connectAll, "bench-connector");
    connector.setDaemon(true);
  }

  /** Starts connecting in the background; heartbeats flow once {@link #setRate} (or interval pacing) says so. */
  public static LoadGenerator start(LoadSpec spec) {
    return start(spec, null);
  }

  /** As {@link #start(LoadSpec)}, {@link LoadSpec.Query#PAGE} players asking what {@code queries} says. */
  public static LoadGenerator start(LoadSpec spec, @Nullable PageQueries queries) {
    LoadGenerator g = new LoadGenerator(spec, queries);
    g.connector.start();
    return g;
  }

  private void connectAll() {
    long start = Time.SYSTEM.nanoTime();
    Bootstrap bootstrap = new Bootstrap().group(group)
        .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MS);
    if (epoll) {
      // Lets many connections to different servers share one source port range per address.
      bootstrap.option(EpollChannelOption.IP_BIND_ADDRESS_NO_PORT, true);
    }
    for (int k = 0; k < players.length && !closing; k++) {
      long due = start + (long) (k * 1e9 / spec.connectRate());
      try {
        while (k >= connectLimit && !closing) {
          Thread.sleep(50);
          start = Time.SYSTEM.nanoTime() - (long) (k * 1e9 / spec.connectRate());
          due = Time.SYSTEM.nanoTime();
        }
        long wait = due - Time.SYSTEM.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        while (!pending.tryAcquire(100, TimeUnit.MILLISECONDS)) {
          if (closing) {
            return;
          }
        }
      } catch (InterruptedException e) {
        return;
      }
      connect(bootstrap, k);
    }
  }

  private void connect(Bootstrap bootstrap, int k) {
    int index = spec.firstIndex() + k;
    Player p = new Player(index, this, spec.window());
    players[k] = p;
    URI target = spec.targets().get(index % spec.targets().size());
    InetSocketAddress local;
    try {
      local = new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) spec.addressOctet(index)}), 0);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
    String token = JwtTokens.mint(spec.secret(), p.uid(), TOKEN_TTL, Time.SYSTEM.instant());
    InetSocketAddress remote = new InetSocketAddress(target.getHost(), target.getPort());
    if (grpc != null) {
      grpc.connect(p, remote, local, token);
      return;
    }
    byte[] upgrade = upgradeRequests.get(target);
    boolean wantFlag = spec.flagMode() == LoadSpec.FlagMode.LEARNED;
    ChannelFuture f = bootstrap.clone()
        .handler(new io.netty.channel.ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            if ("wss".equals(target.getScheme())) {
              ch.pipeline().addLast(clientTls().newHandler(ch.alloc(), target.getHost(), target.getPort()));
            }
            ch.pipeline().addLast(new WsClientHandler(p, upgrade, token, wantFlag, new ServerFrames.View()));
          }
        })
        .connect(remote, local);
    f.addListener(done -> {
      if (!done.isSuccess()) {
        p.onClosed(0);
      }
    });
  }

  /**
   * The client side of wss: OpenSSL when it loads (as the gateway), trusting any certificate. The
   * bench only connects to loopback gateways it was pointed at; verifying their certificate would
   * add client work only, and the client's CPU is not what is measured.
   */
  private static synchronized io.netty.handler.ssl.SslContext clientTls() {
    if (clientTls == null) {
      try {
        clientTls = io.netty.handler.ssl.SslContextBuilder.forClient()
            .trustManager(io.netty.handler.ssl.util.InsecureTrustManagerFactory.INSTANCE).build();
      } catch (javax.net.ssl.SSLException e) {
        throw new IllegalStateException("cannot build the bench's TLS client context", e);
      }
    }
    return clientTls;
  }

  private static io.netty.handler.ssl.@Nullable SslContext clientTls;

  @Override
  public LoadSpec spec() {
    return spec;
  }

  @Override
  public @Nullable PageQueries queries() {
    return queries;
  }

  @Override
  public LoadStats stats() {
    return stats;
  }

  @Override
  public @Nullable String initialFlag() {
    return today;
  }

  @Override
  public void opened(Player p) {
    pending.release();
    stats.open.incrementAndGet();
    Pacer pacer = pacers.get(currentLoop());
    if (pacer != null) {
      pacer.add(p);
    }
  }

  private @Nullable EventExecutor currentLoop() {
    for (EventExecutor e : group) {
      if (e.inEventLoop()) {
        return e;
      }
    }
    return null;
  }

  @Override
  public void closed(Player p, boolean wasOpen, int code) {
    stats.closed(code);
    if (wasOpen) {
      stats.open.decrementAndGet();
    } else {
      stats.connectFailures.increment();
      pending.release();
    }
  }

  private double perPlayerRate() {
    long t = Time.SYSTEM.nanoTime() - rampStart;
    double f = t >= rampNanos ? 1 : Math.max(0, (double) t / rampNanos);
    return rampFrom + (rampTo - rampFrom) * f;
  }

  @Override
  public int connections() {
    return spec.connections();
  }

  @Override
  public synchronized void setRate(double totalPerSecond, Duration ramp) {
    double now = perPlayerRate();
    rampFrom = now;
    rampTo = spec.connections() == 0 ? 0 : totalPerSecond / spec.connections();
    rampNanos = Math.max(1, ramp.toNanos());
    rampStart = Time.SYSTEM.nanoTime();
  }

  @Override
  public void limitConnections(int total) {
    connectLimit = total;
  }

  @Override
  public LoadSnapshot snapshot() {
    return stats.snapshot();
  }

  @Override
  public List<Long> pids() {
    return List.of(ProcessHandle.current().pid());
  }

  /** Closes every connection (waiting up to 10 s for them to go) and stops the loops. */
  @Override
  public void close() {
    closing = true;
    connector.interrupt();
    try {
      connector.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    setRate(0, Duration.ZERO);
    for (Player p : players) {
      if (p != null) {
        p.close(); // Channel and call closes are thread-safe: they hop onto the player's loop.
      }
    }
    long deadline = Time.SYSTEM.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (stats.open.get() > 0 && Time.SYSTEM.nanoTime() < deadline) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (grpc != null) {
      grpc.close();
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }
}
