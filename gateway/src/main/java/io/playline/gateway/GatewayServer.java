package io.playline.gateway;

import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.playline.gateway.admin.AdminHttpServer;
import io.playline.gateway.admin.Readiness;
import io.playline.core.query.HistoryService;
import io.playline.gateway.grpc.GatewayGrpcService;
import io.playline.gateway.push.ConnectionRegistry;
import io.playline.gateway.session.Errors;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.Reconnect;
import io.playline.proto.v1.ServerFrame;
import java.util.concurrent.ThreadLocalRandom;
import io.playline.gateway.grpc.HistoryGrpcService;
import io.playline.core.CoreConfig;
import io.playline.core.store.RedisConnections;
import io.playline.core.write.EventRules;
import io.playline.core.write.FirstTodayListener;
import io.playline.core.write.HistoryWriter;
import io.playline.gateway.heartbeat.FlagCalendar;
import io.playline.gateway.heartbeat.HeartbeatBatcher;
import io.playline.gateway.push.PushRuntime;
import io.playline.gateway.push.PushService;
import io.playline.gateway.session.Authenticator;
import io.playline.gateway.session.SessionStore;
import io.playline.gateway.session.ConnectionLimiter;
import io.playline.gateway.session.SessionServices;
import io.playline.gateway.ws.WebSocketChannelInitializer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway role's servers on one pair of event loop groups: WebSocket ({@code ws.port}),
 * player gRPC ({@code grpc.port}), internal gRPC API with health and reflection ({@code
 * api.port}) and admin HTTP ({@code admin.port}). {@link #close()} stops accepting, then closes
 * connections, then the loops.
 */
public final class GatewayServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GatewayServer.class);
  public static final String READINESS_COMPONENT = "gateway";

  private final Deque<AutoCloseable> parts = new ArrayDeque<>();
  private final Readiness readiness;
  private final HealthStatusManager health = new HealthStatusManager();
  private InetSocketAddress wsAddress = new InetSocketAddress(0);
  private InetSocketAddress grpcAddress = new InetSocketAddress(0);
  private InetSocketAddress apiAddress = new InetSocketAddress(0);
  private InetSocketAddress adminAddress = new InetSocketAddress(0);
  private volatile @Nullable Channel wsListener;
  private volatile @Nullable Server grpcServer;
  private volatile @Nullable ConnectionRegistry drainConnections;
  private volatile @Nullable GatewayConfig config;
  private @Nullable PushService push;

  private GatewayServer(Readiness readiness) {
    this.readiness = readiness;
  }

  /**
   * What the gateway is wired to.
   *
   * @param core history-core settings (the first-today zone, clamping)
   * @param registry meters, scraped on the admin port
   * @param readiness what {@code /readyz} reports
   * @param authenticator verifies tokens
   * @param sessions server-side sessions
   * @param writer the Redis write-through, called only from the heartbeat batcher's thread
   * @param firstToday told when a user is first counted on a day
   * @param redis the session registry and node channels of progress push across gateway nodes; null
   *     keeps push on this node (a single-node deployment)
   * @param history reads and user controls for the internal {@code History} API and the stream's
   *     query frames; null on a node that serves no queries (the API port then serves health and
   *     reflection only, and stream queries are answered UNAVAILABLE)
   */
  public record Wiring(CoreConfig core, PrometheusMeterRegistry registry, Readiness readiness,
      Authenticator authenticator, SessionStore sessions, HistoryWriter writer, FirstTodayListener firstToday,
      @Nullable RedisConnections redis, @Nullable HistoryService history) {

    /** Wiring without queries. */
    public Wiring(CoreConfig core, PrometheusMeterRegistry registry, Readiness readiness, Authenticator authenticator,
        SessionStore sessions, HistoryWriter writer, FirstTodayListener firstToday, @Nullable RedisConnections redis) {
      this(core, registry, readiness, authenticator, sessions, writer, firstToday, redis, null);
    }

    /** Wiring without cross-node push: syncs reach this node's connections only. */
    public Wiring(CoreConfig core, PrometheusMeterRegistry registry, Readiness readiness, Authenticator authenticator,
        SessionStore sessions, HistoryWriter writer, FirstTodayListener firstToday) {
      this(core, registry, readiness, authenticator, sessions, writer, firstToday, null, null);
    }
  }

  /** Binds every port or fails (closing whatever it had bound) with the reason. */
  public static GatewayServer start(GatewayConfig config, Wiring wiring) {
    return start(config, wiring, null);
  }

  /**
   * As {@link #start(GatewayConfig, Wiring)}, serving on {@code loops} (owned by the caller, who
   * closes them after this server; e.g. loops one of which also carries the Redis client); null
   * creates and owns loops of {@code io.threads} threads.
   */
  public static GatewayServer start(GatewayConfig config, Wiring wiring, @Nullable EventLoops loops) {
    Readiness readiness = wiring.readiness();
    GatewayServer server = new GatewayServer(readiness);
    readiness.register(READINESS_COMPONENT);
    try {
      server.bind(config, wiring, loops);
    } catch (IOException | InterruptedException | RuntimeException e) {
      server.close();
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("gateway failed to start: " + e.getMessage(), e);
    }
    readiness.set(READINESS_COMPONENT, true);
    return server;
  }

  private void bind(GatewayConfig config, Wiring wiring, @Nullable EventLoops given) throws IOException,
      InterruptedException {
    PrometheusMeterRegistry registry = wiring.registry();
    Readiness readiness = wiring.readiness();
    EventLoops loops = given;
    if (loops == null) {
      loops = EventLoops.create(config.ioThreads());
      parts.push(loops);
    }
    GatewayMetrics metrics = new GatewayMetrics(registry);
    Clock clock = Clock.systemUTC();
    FlagCalendar calendar = new FlagCalendar(wiring.core().zone());
    PushRuntime pushRuntime = PushRuntime.start(config.nodeId(), config.push(), wiring.core().redisKeyPrefix(),
        wiring.redis(), registry);
    parts.push(pushRuntime);
    push = pushRuntime.service();
    HeartbeatBatcher batcher = new HeartbeatBatcher(config.batcher(), wiring.writer(), calendar, wiring.firstToday(),
        clock, registry, pushRuntime.router());
    parts.push(batcher);
    SessionServices services = new SessionServices(config, wiring.authenticator(), wiring.sessions(), batcher, calendar,
        new EventRules(wiring.core().clampPast(), wiring.core().clampFuture()), metrics, clock,
        pushRuntime.connections(), wiring.history());
    ConnectionLimiter limiter = new ConnectionLimiter(config.maxConnectionsPerAddress());

    AdminHttpServer admin = AdminHttpServer.start(loops, new InetSocketAddress(config.bindHost(), config.adminPort()),
        registry, readiness);
    parts.push(admin);
    adminAddress = admin.address();

    Channel ws = new ServerBootstrap()
        .group(loops.boss(), loops.workers())
        .channel(loops.serverChannelType())
        .option(ChannelOption.SO_BACKLOG, 4096)
        .childHandler(new WebSocketChannelInitializer(services, limiter))
        .bind(new InetSocketAddress(config.bindHost(), config.wsPort()))
        .sync()
        .channel();
    parts.push(() -> ws.close().awaitUninterruptibly());
    this.wsListener = ws;
    wsAddress = (InetSocketAddress) ws.localAddress();

    Server grpc = grpcServer(loops, new InetSocketAddress(config.bindHost(), config.grpcPort()), config)
        .addService(ServerInterceptors.intercept(new GatewayGrpcService(services, limiter, loops.workers()),
            GatewayGrpcService.remoteAddressInterceptor()))
        .build()
        .start();
    parts.push(() -> stop(grpc));
    this.grpcServer = grpc;
    this.drainConnections = pushRuntime.connections();
    this.config = config;
    grpcAddress = new InetSocketAddress(config.bindHost(), grpc.getPort());

    NettyServerBuilder apiBuilder = grpcServer(loops, new InetSocketAddress(config.bindHost(), config.apiPort()), config)
        .addService(health.getHealthService())
        .addService(ProtoReflectionServiceV1.newInstance());
    if (wiring.history() != null) {
      apiBuilder.addService(new HistoryGrpcService(wiring.history(), batcher, services.eventRules(),
          config.maxEventsPerHeartbeat(), clock));
    }
    Server api = apiBuilder.build().start();
    parts.push(() -> stop(api));
    apiAddress = new InetSocketAddress(config.bindHost(), api.getPort());
    health.setStatus("", io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);
    log.info("Gateway listening: ws {} grpc {} api {} admin {}", wsAddress, grpcAddress, apiAddress, adminAddress);
  }

  private static NettyServerBuilder grpcServer(EventLoops loops, InetSocketAddress address, GatewayConfig config) {
    return NettyServerBuilder.forAddress(address)
        .channelType(loops.serverChannelType())
        .bossEventLoopGroup(loops.boss())
        .workerEventLoopGroup(loops.workers())
        .directExecutor()
        .maxInboundMessageSize(config.maxFrameBytes())
        .permitKeepAliveTime(10, TimeUnit.SECONDS)
        .permitKeepAliveWithoutCalls(true);
  }

  private static void stop(Server server) throws InterruptedException {
    server.shutdown();
    if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
      server.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
    }
  }

  /**
   * Moves players off this node before it stops: stops accepting, asks every authenticated
   * connection to reconnect (to another node) after a random delay within {@code
   * drain.reconnect.spread}, waits up to {@code drain.grace} for them to leave, then closes the
   * rest with DRAINING.
   */
  private void drain() {
    ConnectionRegistry connections = drainConnections;
    GatewayConfig cfg = config;
    if (connections == null || cfg == null) {
      return;
    }
    if (wsListener != null) {
      wsListener.close().awaitUninterruptibly();
    }
    if (grpcServer != null) {
      grpcServer.shutdown();
    }
    long spread = cfg.drainSpread().toMillis();
    int asked = cfg.drainGrace().isZero() ? 0 : connections.forEachConnection(t -> t.send(ServerFrame.newBuilder()
        .setReconnect(Reconnect.newBuilder().setReason("node draining")
            .setAfterMs((int) (spread == 0 ? 0 : ThreadLocalRandom.current().nextLong(spread + 1))))
        .build()));
    if (asked > 0) {
      log.info("Draining: asked {} connections to reconnect within {} ms; waiting up to {}", asked, spread,
          cfg.drainGrace());
      long deadline = System.nanoTime() + cfg.drainGrace().toNanos();
      while (connections.connections() > 0 && System.nanoTime() < deadline) {
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    int left = connections.forEachConnection(t -> t.closeWithError(0, Errors.of(Code.DRAINING,
        "this node is shutting down; reconnect")));
    if (left > 0) {
      log.info("Drain: closed {} connections that had not moved", left);
    }
  }

  public InetSocketAddress wsAddress() {
    return wsAddress;
  }

  public InetSocketAddress grpcAddress() {
    return grpcAddress;
  }

  public InetSocketAddress apiAddress() {
    return apiAddress;
  }

  /** Pushes progress to a user's connected devices on every node (backends' entry point). */
  public PushService push() {
    return Objects.requireNonNull(push, "not started");
  }

  public InetSocketAddress adminAddress() {
    return adminAddress;
  }

  @Override
  public void close() {
    readiness.set(READINESS_COMPONENT, false);
    drain();
    health.enterTerminalState();
    while (!parts.isEmpty()) {
      AutoCloseable part = parts.pop();
      try {
        part.close();
      } catch (Exception e) {
        log.warn("Stopping gateway part failed: {}", e.toString());
      }
    }
  }
}
