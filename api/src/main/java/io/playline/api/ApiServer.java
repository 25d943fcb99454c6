package io.playline.api;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.EventExecutor;
import io.playline.api.config.ApiConfig;
import io.playline.api.connect.ConnectServer;
import io.playline.core.HistoryCore;
import io.playline.core.query.HistoryService;
import io.playline.node.Node;
import io.playline.node.NodeConfig;
import io.playline.node.grpc.GrpcServers;
import io.playline.node.grpc.RequestParsing;
import io.playline.node.edge.ConnectionLimiter;
import io.playline.proto.v1.HistoryGrpc;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The internal API server on {@code api.bind.host}:{@code api.port}: {@code playline.v1.History},
 * standard health ({@code grpc.health.v1.Health}, overall and per service) and server reflection
 * (v1 and v1alpha),
 * on a {@link Node}'s event loops; and {@code playline.v1.History} over HTTP/1.1 as the
 * Connect protocol on {@code api.http.port} ({@link ConnectServer}: the same service and
 * interceptor instances). Every call but health needs a service token ({@link
 * ServiceAuthInterceptor}); the gRPC port's TCP connections are capped per node and per address
 * ({@code api.max.connections}, {@code api.max.connections.per.address}): past either, a new
 * connection takes the place of one on which no call proved a token (strangers cannot fill the port),
 * else it is closed at accept. Reports go through the node's batcher (the same write path,
 * first-today and push as players); queries and controls through the node's read path or, beside
 * players ({@link #attachBesidePlayers}), paths of its own, one per API loop, whose Redis clients
 * live on the API's loops ({@link HistoryCore#historyOn}), not on the players'.
 * {@link #attach} ties its life to the node: it stops before the write path it uses.
 */
public final class ApiServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ApiServer.class);
  /** The component the api reports in {@code /readyz}. */
  public static final String READINESS_COMPONENT = "api";

  private final Server server;
  private final @Nullable ConnectServer http;
  private final HealthStatusManager health;
  private final Node node;
  private final ApiConfig access;

  private ApiServer(Server server, @Nullable ConnectServer http, HealthStatusManager health, Node node,
      ApiConfig access) {
    this.server = server;
    this.http = http;
    this.health = health;
    this.node = node;
    this.access = access;
  }

  /**
   * Binds {@code access}'s ports on {@code node}'s loops and attaches itself to the node, on a node
   * that serves no players (the api role): its queries use the node's read path, whose Redis
   * client has a loop no player uses.
   *
   * @throws IllegalStateException when the node is closed or serves no queries (it was started
   *     without HBase), or a port cannot be bound
   */
  public static ApiServer attach(Node node, ApiConfig access) {
    return attach(node, access, false);
  }

  /**
   * As {@link #attach(Node, ApiConfig)}, on a node that also serves players (standalone): each of
   * the API's loops gets a Redis client of its own ({@link HistoryCore#historyOn}), so a backend's
   * query is never written, answered or decoded on the players' loop the node's client shares
   * ({@code io.redis.shared}), nor handed from one API loop to another: it is answered on the loop
   * its connection lives on ({@code api.io.threads} loops, as many Redis connections). A node whose
   * core is not a {@link HistoryCore} (tests) keeps its one read path.
   */
  public static ApiServer attachBesidePlayers(Node node, ApiConfig access) {
    return attach(node, access, true);
  }

  private static ApiServer attach(Node node, ApiConfig access, boolean besidePlayers) {
    if (node.isClosed()) {
      throw closedNode(node);
    }
    HistoryService nodeHistory = node.core().history();
    if (nodeHistory == null) {
      throw new IllegalStateException("the internal API needs a node with queries (HBase)");
    }
    HistoryCore core = node.core().historyCore();
    HistoryService history = besidePlayers && core != null ? ownPaths(core, node) : nodeHistory;
    NodeConfig config = node.config();
    HealthStatusManager health = new HealthStatusManager();
    ServiceAuthInterceptor auth = new ServiceAuthInterceptor(access.secret(), config.tokenClockSkew(),
        node.time().clock(), node.registry(), node.tls() != null && node.tls().mutual());
    HistoryGrpcService service = new HistoryGrpcService(history, node.batcher(), node.eventRules(), config.writes(),
        node.time().clock());
    NettyServerBuilder builder = GrpcServers.builder(node.loops().api(),
            new InetSocketAddress(access.bindHost(), access.port()),
            config.grpcServer().withMaxRstFramesPerWindow(access.maxRstFramesPerWindow()),
            node.tls() == null ? null : node.tls().api(), node.registry(), "api",
            new GrpcServers.Admission(new ConnectionLimiter(access.maxConnections(), access.maxConnectionsPerAddress()),
                null, false, true), node.time())
        .intercept(auth)
        .addService(health.getHealthService())
        .addService(ProtoReflectionServiceV1.newInstance())
        .addService(reflectionV1Alpha())
        .addService(RequestParsing.wrap(service.bindService()));
    Server server;
    try {
      server = builder.build().start();
    } catch (IOException e) {
      throw new IllegalStateException("internal API failed to bind " + access.bindHost() + ":" + access.port()
          + ": " + e.getMessage(), e);
    }
    ConnectServer http = null;
    if (access.http().enabled()) {
      try {
        http = ConnectServer.start(node.loops().api(), access.bindHost(), access.http(), config.grpcServer().maxFrameBytes(),
            node.tls() == null ? null : node.tls().apiHttp(), node.registry(), node.time(),
            ServerInterceptors.intercept(service, auth));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        server.shutdownNow();
        throw new IllegalStateException("interrupted while binding the internal API's HTTP port", e);
      } catch (Exception e) { // the bind's exception, thrown unchecked by Netty
        server.shutdownNow();
        throw new IllegalStateException("internal API failed to bind its HTTP port " + access.bindHost() + ":"
            + access.http().port() + " (api.http.port; api.http.enabled=false turns it off): " + e.getMessage(), e);
      }
    }
    health.setStatus("", ServingStatus.SERVING);
    health.setStatus(HistoryGrpc.SERVICE_NAME, ServingStatus.SERVING);
    ApiServer api = new ApiServer(server, http, health, node, access);
    node.readiness().register(READINESS_COMPONENT);
    node.readiness().set(READINESS_COMPONENT, true);
    if (!node.attach(api)) {
      throw closedNode(node); // closed by the node's attach: its ports went with it
    }
    log.info("Internal API listening on {}{} ({}, health open)", api.address(),
        http == null ? "" : " and HTTP (Connect) " + http.address(), node.tls() == null
        ? "plain text, service tokens required"
        : node.tls().mutual() ? "TLS, client certificates required" : "TLS, service tokens required");
    return api;
  }

  /**
   * One read path per API loop, each over a Redis client on its loop ({@link HistoryCore#historyOn}):
   * a call is answered on the loop its connection lives on ({@link LoopLocalHistory}).
   */
  private static HistoryService ownPaths(HistoryCore core, Node node) {
    List<LoopLocalHistory.OnLoop> paths = new ArrayList<>();
    for (EventExecutor loop : node.loops().api().workers()) {
      paths.add(new LoopLocalHistory.OnLoop(loop, core.historyOn((EventLoop) loop)));
    }
    return new LoopLocalHistory(paths);
  }

  private static IllegalStateException closedNode(Node node) {
    return new IllegalStateException("cannot attach the internal API to node " + node.config().nodeId()
        + ": the node is closed");
  }

  /**
   * Server reflection as {@code grpc.reflection.v1alpha}, beside v1: older grpcurl and Postman ask
   * only v1alpha, and without it they answer "Method not found" to a {@code list}.
   */
  @SuppressWarnings("deprecation") // grpc-java deprecates the v1alpha service for v1, which is served too
  private static BindableService reflectionV1Alpha() {
    return io.grpc.protobuf.services.ProtoReflectionService.newInstance();
  }

  public InetSocketAddress address() {
    return new InetSocketAddress(access.bindHost(), server.getPort());
  }

  /** The HTTP (Connect) port's address; null when {@code api.http.enabled} is false. */
  public @Nullable InetSocketAddress httpAddress() {
    return http == null ? null : http.address();
  }

  /** Reports NOT_SERVING to health checkers, then stops (bounded). */
  @Override
  public void close() {
    node.readiness().set(READINESS_COMPONENT, false);
    health.enterTerminalState();
    if (http != null) {
      http.close();
    }
    try {
      GrpcServers.stop(server);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.shutdownNow();
    }
  }
}
