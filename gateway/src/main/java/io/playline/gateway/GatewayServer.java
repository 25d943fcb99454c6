package io.playline.gateway;

import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.NettyServerBuilder;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.playline.gateway.config.GatewayConfig;
import io.playline.gateway.grpc.GatewayGrpcService;
import io.playline.gateway.push.ConnectionRegistry;
import io.playline.gateway.session.SessionParts;
import io.playline.node.errors.Errors;
import io.playline.gateway.ws.DemoPage;
import io.playline.gateway.ws.WebSocketChannelInitializer;
import io.playline.node.loops.EventLoops;
import io.playline.node.Node;
import io.playline.node.admin.Readiness;
import io.playline.node.edge.AddressBudgets;
import io.playline.node.edge.ConnectionLimiter;
import io.playline.node.NodeConfig;
import io.playline.node.grpc.GrpcServers;
import io.playline.node.tls.ServerTls;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.Reconnect;
import io.playline.proto.v1.ServerFrame;
import io.playline.time.Time;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's player listeners on its event loops: WebSocket ({@code ws.port}) and player gRPC
 * ({@code grpc.port}). Assembled by {@link PlayerEdge}. {@link #close()} drains: stops accepting,
 * asks connections to move, then closes the rest and the listeners.
 */
final class GatewayServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GatewayServer.class);
  static final String READINESS_COMPONENT = "gateway";

  private final Deque<AutoCloseable> parts = new ArrayDeque<>();
  private final Readiness readiness;
  private final GatewayConfig config;
  private final ConnectionRegistry connections;
  private final Time time;
  private InetSocketAddress wsAddress = new InetSocketAddress(0);
  private InetSocketAddress grpcAddress = new InetSocketAddress(0);
  private volatile @Nullable Channel wsListener;
  private volatile @Nullable Server grpcServer;
  private volatile @Nullable ConnectionLimiter limiter;

  private GatewayServer(GatewayConfig config, ConnectionRegistry connections, Readiness readiness, Time time) {
    this.config = config;
    this.connections = connections;
    this.readiness = readiness;
    this.time = time;
  }

  /** The node's connection caps and counts. */
  ConnectionLimiter limiter() {
    return java.util.Objects.requireNonNull(limiter, "not bound");
  }

  /**
   * Binds both player ports on {@code node}'s loops or fails, closing what it had bound. Sessions stand
   * on {@code sessions}; {@code connections} is where they register for push (drained on close),
   * {@code limiter} the node's connection caps.
   */
  static GatewayServer start(Node node, GatewayConfig config, SessionParts sessions, ConnectionRegistry connections,
      ConnectionLimiter limiter, @Nullable DemoPage demo) {
    Readiness readiness = node.readiness();
    GatewayServer server = new GatewayServer(config, connections, readiness, node.time());
    readiness.register(READINESS_COMPONENT);
    try {
      server.bind(sessions, limiter, node.loops(), node.config(), node.tls(), demo);
    } catch (InterruptedException | RuntimeException e) {
      server.close();
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("gateway failed to start: " + e.getMessage(), e);
    } catch (IOException e) {
      server.close();
      throw new IllegalStateException("gateway failed to start: " + e.getMessage(), e);
    }
    readiness.set(READINESS_COMPONENT, true);
    return server;
  }

  private void bind(SessionParts sessions, ConnectionLimiter limiter, EventLoops loops, NodeConfig nodeConfig,
      @Nullable ServerTls tls, @Nullable DemoPage demo) throws IOException, InterruptedException {
    String host = nodeConfig.bindHost();
    this.limiter = limiter;
    // One budget per address across both ports: a client cut on one must not reconnect on the other.
    AddressBudgets addresses = new AddressBudgets(config.addresses(), sessions.metrics().registry(), time);
    Channel ws = new ServerBootstrap()
        .group(loops.boss(), loops.workers())
        .channel(loops.serverChannelType())
        .option(ChannelOption.SO_BACKLOG, 4096)
        .childHandler(new WebSocketChannelInitializer(sessions, limiter, addresses,
            tls == null ? null : tls.webSocket(), demo))
        .bind(new InetSocketAddress(host, config.wsPort()))
        .sync()
        .channel();
    parts.push(() -> ws.close().awaitUninterruptibly());
    this.wsListener = ws;
    wsAddress = (InetSocketAddress) ws.localAddress();

    // The TCP connections are counted apart from the player streams (which the service counts in
    // `limiter`), against the same caps: one connection carrying one stream is one of each.
    ConnectionLimiter tcp = new ConnectionLimiter(config.maxConnections(), config.maxConnectionsPerAddress(),
        config.maxConnectionsPerUser(), config.addresses().prefixes());
    NettyServerBuilder players = GrpcServers.builder(loops, new InetSocketAddress(host, config.grpcPort()),
        nodeConfig.grpcServer(), tls == null ? null : tls.grpc(), sessions.metrics().registry(), "player",
        new GrpcServers.Admission(tcp, addresses, config.proxyProtocol(), false), time);
    Server grpc = players
        .addService(ServerInterceptors.intercept(new GatewayGrpcService(sessions, limiter, loops.workers()),
            GatewayGrpcService.remoteAddressInterceptor()))
        .build()
        .start();
    parts.push(() -> GrpcServers.stop(grpc));
    this.grpcServer = grpc;
    grpcAddress = new InetSocketAddress(host, grpc.getPort());
    log.info("Gateway listening: {} {} grpc{} {}", tls == null ? "ws" : "wss", wsAddress, tls == null ? "" : "+tls",
        grpcAddress);
  }

  /**
   * Moves players off this node before it stops: stops accepting, asks every authenticated
   * connection to reconnect (to another node) after a random delay within {@code
   * drain.reconnect.spread}, waits up to {@code drain.grace} for them to leave, then closes the
   * rest with DRAINING.
   */
  private void drain() {
    if (wsListener != null) {
      wsListener.close().awaitUninterruptibly();
    }
    if (grpcServer != null) {
      grpcServer.shutdown();
    }
    long spread = config.drainSpread().toMillis();
    int asked = config.drainGrace().isZero() ? 0 : connections.forEachConnection(t -> t.send(ServerFrame.newBuilder()
        .setReconnect(Reconnect.newBuilder().setReason("node draining")
            .setAfterMs((int) (spread == 0 ? 0 : ThreadLocalRandom.current().nextLong(spread + 1))))
        .build()));
    if (asked > 0) {
      log.info("Draining: asked {} connections to reconnect within {} ms; waiting up to {}", asked, spread,
          config.drainGrace());
      // The grace passes by the node's time; the sleep only paces the look at the real connections.
      long deadline = time.nanoTime() + config.drainGrace().toNanos();
      while (connections.connections() > 0 && time.nanoTime() - deadline < 0) {
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


  @Override
  public void close() {
    readiness.set(READINESS_COMPONENT, false);
    drain();
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
