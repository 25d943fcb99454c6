package io.playline.gateway;

import io.playline.core.query.HistoryService;
import io.playline.core.store.RedisKeys;
import io.playline.gateway.budget.UserBudgets;
import io.playline.gateway.config.GatewayConfig;
import io.playline.gateway.heartbeat.HeartbeatPath;
import io.playline.gateway.heartbeat.WritePath;
import io.playline.gateway.push.ConnectionRegistry;
import io.playline.gateway.push.PushPlug;
import io.playline.gateway.push.PushRuntime;
import io.playline.gateway.budget.AuthRefusalHold;
import io.playline.gateway.session.GatewayMetrics;
import io.playline.gateway.session.JwksAuthenticator;
import io.playline.gateway.session.JwtAuthenticator;
import io.playline.gateway.session.PlayerHistory;
import io.playline.gateway.session.RedisResumeStore;
import io.playline.gateway.session.SessionParts;
import io.playline.gateway.session.TokenAuthenticator;
import io.playline.gateway.session.UserLimits;
import io.playline.gateway.ws.DemoPage;
import io.playline.node.Node;
import io.playline.node.StartedParts;
import io.playline.node.edge.ConnectionLimiter;
import io.playline.node.push.PushService;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The player edge on a {@link Node}: the WebSocket and player gRPC listeners on the node's loops,
 * the sessions and user budgets behind them, writing heartbeats through the node's batcher and
 * pushing progress through the {@link PushPlug} the node was built with. The internal API plugs
 * into the same node as a sibling.
 *
 * <p>{@link #attach} blocks while binding (start-up only) and ties the edge's life to the node;
 * {@link #close()} reports not ready, drains the players, then stops the token verifiers.
 * Thread-safe to close from a shutdown hook; idempotent.
 */
public final class PlayerEdge implements AutoCloseable {
  /** The component the player edge reports in {@code /readyz}. */
  public static final String READINESS_COMPONENT = GatewayServer.READINESS_COMPONENT;

  private final StartedParts parts = new StartedParts();
  private final Node node;
  private final GatewayConfig config;
  private final PushRuntime push;
  private volatile @Nullable GatewayServer players;
  private boolean closed;

  private PlayerEdge(Node node, GatewayConfig config, PushRuntime push) {
    this.node = node;
    this.config = config;
    this.push = push;
  }

  /**
   * Binds {@code ws.port} and {@code grpc.port} on {@code node}, verifying player tokens with
   * {@code auth.secret} and {@code auth.jwks.url}, and attaches itself to the node. {@code push}
   * must be the plug {@code node} was built with; {@code demo} (nullable) serves the demo web
   * player on the WebSocket port.
   *
   * @throws IllegalStateException when {@code node} is closed, or when a port cannot be bound (what
   *     had started is stopped)
   */
  public static PlayerEdge attach(Node node, GatewayConfig config, PushPlug push, @Nullable DemoPage demo) {
    if (node.isClosed()) {
      throw closedNode(node);
    }
    PlayerEdge edge = new PlayerEdge(node, config, push.runtime());
    try {
      edge.bind(demo);
    } catch (RuntimeException e) {
      edge.close();
      throw e;
    }
    if (!node.attach(edge)) {
      edge.close(); // bound already: its ports and token verifiers go with it
      throw closedNode(node);
    }
    return edge;
  }

  private static IllegalStateException closedNode(Node node) {
    return new IllegalStateException("cannot attach the player edge to node " + node.config().nodeId()
        + ": the node is closed");
  }

  private void bind(@Nullable DemoPage demo) {
    Node.Core core = node.core();
    Duration skew = node.config().tokenClockSkew();
    String secret = config.authSecret();
    TokenAuthenticator tokens = parts.add(new TokenAuthenticator(
        secret == null ? null : new JwtAuthenticator(secret, skew, node.time().clock()),
        config.jwks().enabled() ? new JwksAuthenticator(config.jwks(), skew, node.time()) : null));
    GatewayMetrics metrics = new GatewayMetrics(node.registry());
    UserBudgets budgets = new UserBudgets(config.maxUserEventsPerSecond(), config.maxUserDeletesPerMinute(),
        config.maxUserAuthsPerMinute(), config.maxUserAuthsBurst(), node.registry(), node.time()::nanoTime, push::otherNodes,
        new AuthRefusalHold(config.authRefusalHold(), config.maxHeldAuthRefusals(), node.registry()));
    push.reportTo(budgets);
    String nodeId = node.config().nodeId();
    ConnectionRegistry connections = push.connections();
    ConnectionLimiter limiter = new ConnectionLimiter(config.maxConnections(), config.maxConnectionsPerAddress(),
        config.maxConnectionsPerUser(), config.addresses().prefixes());
    HeartbeatPath heartbeats = new HeartbeatPath(WritePath.of(node.batcher()), budgets, node.config().writes(),
        node.eventRules(), node.calendar(), node.time(), config.maxUserRefusalsBeforeClose());
    // A node serving no queries gives its sessions none: they answer UNAVAILABLE.
    @Nullable HistoryService queries = core.history();
    SessionParts parts = new SessionParts(config, node.time(), metrics, tokens,
        new RedisResumeStore(core.redis().shared(), new RedisKeys(core.config().redisKeyPrefix()), config.sessionTtl(),
            config.sessionMaxAge(), config.sessionMaxPerUser(), nodeId, metrics),
        UserLimits.of(budgets, limiter), connections, heartbeats,
        queries == null ? null : PlayerHistory.of(queries));
    players = GatewayServer.start(node, config, parts, connections, limiter, demo);
  }

  /** The node this edge runs on. */
  public Node node() {
    return node;
  }

  public GatewayConfig config() {
    return config;
  }

  /** Pushes progress to a user's connected devices on every node (backends' entry point). */
  public PushService push() {
    return push.service();
  }

  /** The WebSocket listener's address. */
  public InetSocketAddress wsAddress() {
    return server().wsAddress();
  }

  /** The player gRPC listener's address. */
  public InetSocketAddress grpcAddress() {
    return server().grpcAddress();
  }

  /** The player connections' caps and counts. */
  public ConnectionLimiter connectionLimiter() {
    return server().limiter();
  }

  private GatewayServer server() {
    GatewayServer p = players;
    if (p == null) {
      throw new IllegalStateException("not bound");
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
    GatewayServer p = players;
    node.readiness().set(READINESS_COMPONENT, false);
    if (p != null) {
      StartedParts.closeQuietly(p);
    }
    parts.close();
  }
}
