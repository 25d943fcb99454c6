package io.playline.gateway;

import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.netty.handler.ssl.SslContext;
import org.jspecify.annotations.Nullable;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * How Playline builds and stops its gRPC servers (player stream, internal API): on the node's
 * event loops, with a direct executor (handlers never block), a bounded inbound message, a
 * handshake deadline and per-connection limits ({@link GrpcLimits}). Stateless.
 */
public final class GrpcServers {
  private GrpcServers() {}

  /**
   * A server builder bound to {@code address} on {@code loops}, accepting messages up to {@code
   * config}'s {@code frame.max.bytes}, closing connections that do not finish the HTTP/2 handshake
   * within {@code handshake.timeout}, with {@code config}'s per-connection {@link GrpcLimits}; over
   * TLS when {@code tls} is given (from {@link io.playline.gateway.tls.ServerTls}).
   */
  public static NettyServerBuilder builder(EventLoops loops, InetSocketAddress address, GatewayConfig config,
      @Nullable SslContext tls) {
    GrpcLimits limits = config.grpc();
    NettyServerBuilder b = NettyServerBuilder.forAddress(address)
        .channelType(loops.serverChannelType())
        .bossEventLoopGroup(loops.boss())
        .workerEventLoopGroup(loops.workers())
        .directExecutor()
        .maxInboundMessageSize(config.maxFrameBytes())
        .handshakeTimeout(config.handshakeTimeout().toNanos(), TimeUnit.NANOSECONDS)
        .maxConcurrentCallsPerConnection(limits.maxConcurrentCallsPerConnection())
        .permitKeepAliveTime(limits.keepAlivePermitTime().toNanos(), TimeUnit.NANOSECONDS)
        .permitKeepAliveWithoutCalls(true);
    if (!limits.maxConnectionIdle().isZero()) {
      b.maxConnectionIdle(limits.maxConnectionIdle().toNanos(), TimeUnit.NANOSECONDS);
    }
    if (!limits.maxConnectionAge().isZero()) {
      b.maxConnectionAge(limits.maxConnectionAge().toNanos(), TimeUnit.NANOSECONDS)
          .maxConnectionAgeGrace(limits.maxConnectionAgeGrace().toNanos(), TimeUnit.NANOSECONDS);
    }
    if (tls != null) {
      b.sslContext(tls);
    }
    return b;
  }

  /** Stops accepting, lets calls finish for up to 5 s, then cancels the rest (bounded). */
  public static void stop(Server server) throws InterruptedException {
    server.shutdown();
    if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
      server.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
    }
  }
}
