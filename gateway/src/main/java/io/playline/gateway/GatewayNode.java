package io.playline.gateway;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.EventLoop;
import io.playline.core.CoreConfig;
import io.playline.core.HistoryCore;
import io.playline.core.config.ConfigSource;
import io.playline.core.query.HistoryService;
import io.playline.core.store.RedisConnections;
import io.playline.core.store.RedisKeys;
import io.playline.core.write.EventRules;
import io.playline.core.write.FirstTodayListener;
import io.playline.core.write.HistoryWriter;
import io.playline.node.write.FlagCalendar;
import io.playline.node.write.WriteBatcher;
import io.playline.gateway.push.PushRuntime;
import io.playline.gateway.push.PushService;
import io.playline.gateway.session.Authenticator;
import io.playline.gateway.session.JwksAuthenticator;
import io.playline.gateway.session.JwtAuthenticator;
import io.playline.gateway.session.RedisSessionStore;
import io.playline.gateway.session.SessionServices;
import io.playline.gateway.session.TokenAuthenticator;
import io.playline.gateway.session.UserBudgets;
import io.playline.gateway.ws.DemoPage;
import io.playline.node.EventLoops;
import io.playline.node.StartedParts;
import io.playline.node.admin.AdminHttpServer;
import io.playline.node.admin.Readiness;
import io.playline.node.edge.ConnectionLimiter;
import io.playline.node.tls.ServerTls;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.Objects;
import org.apache.hadoop.hbase.client.Connection;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way a Playline process assembles its write path and player edge, used by the gateway
 * role, the api role, standalone and the tests alike: event loops first, then the history core
 * (Redis on the first loop with {@code io.redis.shared}), progress push, the heartbeat batcher,
 * the admin HTTP server, and (unless {@link Builder#players(boolean) players(false)}) the player
 * listeners. Other servers (the internal API) bind on {@link #loops()} and {@link #attach}
 * themselves, so they stop before the write path they use.
 *
 * <p>{@link Builder#start()} blocks while connecting and binding (start-up only); a failure closes
 * whatever had started. {@link #close()} drains players, stops attached servers, the listeners,
 * the batcher, push, the core (which flushes the write-back), the loops, then the meters it
 * owns. Thread-safe to close from a shutdown hook; idempotent.
 */
public final class GatewayNode implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GatewayNode.class);
  /** The component this node reports in {@code /readyz}. */
  public static final String READINESS_COMPONENT = GatewayServer.READINESS_COMPONENT;

  /**
   * What a node writes with. {@code owner} is closed when the node closes, after everything that
   * writes through it.
   *
   * @param config history-core settings (key prefix, zone, clamping)
   * @param redis the process's Redis client: sessions, push registry and node channels
   * @param writer the Redis write-through, called only on the heartbeat batcher's loop
   * @param firstToday told when a user is first counted on a day
   * @param history reads and user controls; null on a node that serves no queries
   * @param owner closes all of the above
   */
  public record Core(CoreConfig config, RedisConnections redis, HistoryWriter writer, FirstTodayListener firstToday,
      @Nullable HistoryService history, AutoCloseable owner) {}

  /** Starts the node's {@link Core}, with Redis I/O on {@code redisLoop} (null: a thread of its own). */
  @FunctionalInterface
  public interface CoreStarter {
    Core start(@Nullable EventLoop redisLoop, MeterRegistry registry);
  }

  /**
   * The production core: {@link HistoryCore} on {@code redisUri} ({@code redis.cluster} selects
   * Cluster mode) and {@code kafkaBootstrapServers}, with queries over {@code hbase} when given
   * (the connection stays the caller's).
   */
  public static CoreStarter historyCore(ConfigSource source, String redisUri, String kafkaBootstrapServers,
      String nodeId, @Nullable Connection hbase) {
    return (loop, registry) -> {
      HistoryCore core = HistoryCore.start(source, redisUri, kafkaBootstrapServers, nodeId, registry, loop);
      try {
        HistoryService history = hbase == null ? null : core.attachHBase(hbase);
        return new Core(core.config(), core.redis(), core.writer(), core.firstToday(), history, core);
      } catch (RuntimeException e) {
        core.close();
        throw e;
      }
    };
  }

  private final StartedParts parts = new StartedParts();
  private final StartedParts attached = new StartedParts();
  private final GatewayConfig config;
  private final PrometheusMeterRegistry registry;
  private final Readiness readiness;
  private volatile @Nullable EventLoops loops;
  private volatile @Nullable Core core;
  private volatile @Nullable PushRuntime push;
  private volatile @Nullable WriteBatcher batcher;
  private volatile @Nullable EventRules eventRules;
  private volatile @Nullable GatewayServer players;
  private volatile @Nullable AdminHttpServer admin;
  private volatile @Nullable ServerTls tls;
  private boolean closed;

  private GatewayNode(GatewayConfig config, PrometheusMeterRegistry registry, Readiness readiness) {
    this.config = config;
    this.registry = registry;
    this.readiness = readiness;
  }

  public static Builder builder(GatewayConfig config) {
    return new Builder(config);
  }

  /** How a node is put together; every part but the core has a default. */
  public static final class Builder {
    private final GatewayConfig config;
    private @Nullable PrometheusMeterRegistry registry;
    private @Nullable Readiness readiness;
    private @Nullable Authenticator authenticator;
    private @Nullable CoreStarter core;
    private boolean crossNodePush = true;
    private boolean players = true;
    private @Nullable DemoPage demo;

    private Builder(GatewayConfig config) {
      this.config = Objects.requireNonNull(config, "config");
    }

    /** Meters shared with other parts of the process (closed by its owner); default: the node's own. */
    public Builder registry(PrometheusMeterRegistry registry) {
      this.registry = registry;
      return this;
    }

    /** What {@code /readyz} reports, shared with other parts of the process; default: the node's own. */
    public Builder readiness(Readiness readiness) {
      this.readiness = readiness;
      return this;
    }

    /** Verifies player tokens; default: HS256 JWTs signed with {@code auth.secret}. */
    public Builder authenticator(Authenticator authenticator) {
      this.authenticator = authenticator;
      return this;
    }

    /** Required: what the node writes with. */
    public Builder core(CoreStarter core) {
      this.core = core;
      return this;
    }

    /**
     * Whether progress pushes reach other nodes through Redis (default true); false keeps them on
     * this node (a single-node deployment, or a test of one node).
     */
    public Builder crossNodePush(boolean crossNodePush) {
      this.crossNodePush = crossNodePush;
      return this;
    }

    /** Serves the demo web player on the WebSocket port (default: none). */
    public Builder demo(@Nullable DemoPage demo) {
      this.demo = demo;
      return this;
    }

    /**
     * Whether the node accepts players on {@code ws.port} and {@code grpc.port} (default true);
     * false gives a node that writes for the internal API only.
     */
    public Builder players(boolean players) {
      this.players = players;
      return this;
    }

    /** Connects and binds; on failure whatever started is stopped again and the cause rethrown. */
    public GatewayNode start() {
      CoreStarter starter = Objects.requireNonNull(core, "core");
      boolean ownRegistry = registry == null;
      PrometheusMeterRegistry meters = ownRegistry ? new PrometheusMeterRegistry(PrometheusConfig.DEFAULT) : registry;
      GatewayNode node = new GatewayNode(config, meters, readiness != null ? readiness : new Readiness());
      if (ownRegistry) {
        node.parts.add(meters::close);
      }
      try {
        Authenticator tokens = authenticator;
        if (tokens == null) {
          String secret = config.authSecret();
          TokenAuthenticator standard = new TokenAuthenticator(
              secret == null ? null : new JwtAuthenticator(secret, config.authClockSkew(), Clock.systemUTC()),
              config.jwks().enabled() ? new JwksAuthenticator(config.jwks(), config.authClockSkew()) : null);
          node.parts.add(standard);
          tokens = standard;
        }
        node.assemble(starter, tokens, crossNodePush, players, demo);
        return node;
      } catch (RuntimeException e) {
        node.close();
        throw e;
      }
    }
  }

  private void assemble(CoreStarter starter, Authenticator authenticator, boolean crossNodePush, boolean acceptPlayers,
      @Nullable DemoPage demo) {
    // The loops outlive the Redis client that may share one of them: created first, closed last.
    EventLoops l = EventLoops.create(config.ioThreads());
    parts.add(l);
    loops = l;
    Core c = starter.start(l.redisLoop(config.redisOnIoLoop()), registry);
    parts.add(c.owner());
    core = c;
    PushRuntime p = PushRuntime.start(config.nodeId(), config.push(), c.config().redisKeyPrefix(),
        crossNodePush ? c.redis() : null, registry);
    parts.add(p);
    push = p;
    Clock clock = Clock.systemUTC();
    FlagCalendar calendar = new FlagCalendar(c.config().zone());
    WriteBatcher b = new WriteBatcher(config.batcher(), c.writer(), calendar, c.firstToday(), clock, registry,
        p.router());
    parts.add(b);
    batcher = b;
    EventRules rules = new EventRules(c.config().clampPast(), c.config().clampFuture());
    eventRules = rules;
    ServerTls t = ServerTls.start(config.tls(), registry);
    if (t != null) {
      parts.add(t);
      tls = t;
    }
    AdminHttpServer a = admin(l);
    parts.add(a);
    admin = a;
    if (acceptPlayers) {
      GatewayMetrics metrics = new GatewayMetrics(registry);
      UserBudgets budgets = new UserBudgets(config.maxUserEventsPerSecond(), config.maxUserDeletesPerMinute(),
          config.maxUserAuthsPerMinute(), registry, System::nanoTime, p::otherNodes);
      p.reportTo(budgets);
      SessionServices services = new SessionServices(config, authenticator,
          new RedisSessionStore(c.redis().shared(), new RedisKeys(c.config().redisKeyPrefix()), config.sessionTtl(),
              config.sessionMaxAge(), config.sessionMaxPerUser(), config.nodeId(), metrics),
          b, calendar, rules, metrics, clock, p.connections(), c.history(),
          new ConnectionLimiter(config.maxConnections(), config.maxConnectionsPerAddress(),
              config.maxConnectionsPerUser()),
          budgets);
      players = GatewayServer.start(config, services, l, readiness, t, demo);
    }
    log.info("Node {} up: players {}, queries {}, cross-node push {}, admin {}", config.nodeId(),
        acceptPlayers ? "ws " + wsAddress() + " grpc " + grpcAddress() : "off",
        c.history() != null ? "on" : "off", crossNodePush, a.address());
  }

  private AdminHttpServer admin(EventLoops l) {
    try {
      return AdminHttpServer.start(l, config.admin(), config.adminPort(), registry, readiness);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while binding the admin port", e);
    }
  }

  /**
   * Closes {@code part} when this node closes: after the players are drained, before the write
   * path. For servers that bind on {@link #loops()} and write through {@link #batcher()}.
   */
  public void attach(AutoCloseable part) {
    synchronized (this) {
      if (!closed) {
        attached.add(part);
        return;
      }
    }
    StartedParts.closeQuietly(part);
  }

  public GatewayConfig config() {
    return config;
  }

  /** The node's TLS (its listeners speak TLS), or null when they are plain text. */
  public @Nullable ServerTls tls() {
    return tls;
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  public Readiness readiness() {
    return readiness;
  }

  public EventLoops loops() {
    return Objects.requireNonNull(loops, "not started");
  }

  public Core core() {
    return Objects.requireNonNull(core, "not started");
  }

  /** The batched write path: players' heartbeats and the internal API's reports go through it. */
  public WriteBatcher batcher() {
    return Objects.requireNonNull(batcher, "not started");
  }

  /** Event validation and time clamping, as the batcher's callers apply it. */
  public EventRules eventRules() {
    return Objects.requireNonNull(eventRules, "not started");
  }

  /** Pushes progress to a user's connected devices on every node (backends' entry point). */
  public PushService push() {
    return Objects.requireNonNull(push, "not started").service();
  }

  /** The WebSocket listener's address. @throws IllegalStateException on a node without players */
  public InetSocketAddress wsAddress() {
    return playerServer().wsAddress();
  }

  /** The player gRPC listener's address. @throws IllegalStateException on a node without players */
  public InetSocketAddress grpcAddress() {
    return playerServer().grpcAddress();
  }

  /** The player connections' caps and counts. @throws IllegalStateException on a node without players */
  public ConnectionLimiter connectionLimiter() {
    return playerServer().limiter();
  }

  public InetSocketAddress adminAddress() {
    return Objects.requireNonNull(admin, "not started").address();
  }

  /** Whether this node accepts players. */
  public boolean acceptsPlayers() {
    return players != null;
  }

  private GatewayServer playerServer() {
    GatewayServer p = players;
    if (p == null) {
      throw new IllegalStateException("this node accepts no players");
    }
    return p;
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    readiness.set(READINESS_COMPONENT, false);
    GatewayServer p = players;
    if (p != null) {
      StartedParts.closeQuietly(p);
    }
    attached.close();
    parts.close();
  }
}
