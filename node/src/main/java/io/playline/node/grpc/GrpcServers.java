package io.playline.node.grpc;

import io.grpc.Server;
import io.grpc.netty.InternalProtocolNegotiator;
import io.grpc.netty.InternalProtocolNegotiators;
import io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.handler.ssl.SslContext;
import io.playline.node.loops.EventLoops;
import io.playline.node.edge.AddressBudgets;
import io.playline.node.edge.ConnectionLimiter;
import io.playline.time.Time;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * How Playline builds and stops its gRPC servers (player stream, internal API): on the node's
 * event loops, with a direct executor (handlers never block), a bounded inbound message, a
 * handshake deadline, per-connection limits ({@link GrpcLimitsConfig}: rapid-reset protection, a deadline
 * for the first stream, idle and age limits) and client-caused stream errors kept out of the log
 * ({@link StreamErrorLog}). Stateless.
 */
public final class GrpcServers {
  private GrpcServers() {}

  /**
   * Who a server lets connect before any HTTP/2.
   *
   * @param connections the TCP connections' caps, per node and per address (null: not counted)
   * @param addresses the per-address new-connection budgets and abuse penalties (null: none)
   * @param proxyProtocol a PROXY protocol header is read first ({@link GrpcProxyProtocol}) and its
   *     address is the one counted
   * @param strangersGiveWay over {@code connections}' caps, a new connection takes the place of one on
   *     which no call proved a credential ({@link Http2ConnectionGuard#proven}): for a port whose
   *     every call needs one but a health check, so strangers cannot fill it
   */
  public record Admission(@Nullable ConnectionLimiter connections, @Nullable AddressBudgets addresses,
      boolean proxyProtocol, boolean strangersGiveWay) {}

  /**
   * A server builder bound to {@code address} on {@code loops}, accepting messages up to {@code
   * config}'s {@code frame.max.bytes}, closing connections that do not finish the HTTP/2 handshake
   * within {@code handshake.timeout}, with {@code config}'s per-connection {@link GrpcLimitsConfig}, letting
   * connections in by {@code admission}; over TLS when {@code tls} is given (from {@link
   * io.playline.node.tls.ServerTls}); what it refuses and cuts is counted on {@code registry}
   * tagged {@code server}; its own deadlines (first stream, probation) pass by {@code time}.
   */
  public static NettyServerBuilder builder(EventLoops loops, InetSocketAddress address, GrpcServerConfig config,
      @Nullable SslContext tls, MeterRegistry registry, String server, Admission admission, Time time) {
    GrpcLimitsConfig limits = config.limits();
    StreamErrorLog.install(registry);
    ClientErrorLog.install(registry);
    NettyServerBuilder b = NettyServerBuilder.forAddress(address)
        .channelType(loops.serverChannelType())
        .bossEventLoopGroup(loops.boss())
        .workerEventLoopGroup(loops.workers())
        .directExecutor()
        .maxInboundMessageSize(config.maxFrameBytes())
        .handshakeTimeout(config.handshakeTimeout().toNanos(), TimeUnit.NANOSECONDS)
        .maxConcurrentCallsPerConnection(limits.maxConcurrentCallsPerConnection())
        .permitKeepAliveTime(limits.keepAlivePermitTime().toNanos(), TimeUnit.NANOSECONDS)
        .permitKeepAliveWithoutCalls(true)
        .maxRstFramesPerWindow(limits.maxRstFramesPerWindow(), (int) limits.rstWindow().getSeconds());
    if (!limits.maxConnectionIdle().isZero()) {
      b.maxConnectionIdle(limits.maxConnectionIdle().toNanos(), TimeUnit.NANOSECONDS);
    }
    if (!limits.maxConnectionAge().isZero()) {
      b.maxConnectionAge(limits.maxConnectionAge().toNanos(), TimeUnit.NANOSECONDS)
          .maxConnectionAgeGrace(limits.maxConnectionAgeGrace().toNanos(), TimeUnit.NANOSECONDS);
    }
    InternalProtocolNegotiator.ProtocolNegotiator negotiation = tls == null
        ? InternalProtocolNegotiators.serverPlaintext() : InternalProtocolNegotiators.serverTls(tls);
    Http2ConnectionGuard guard = new Http2ConnectionGuard(limits.firstStreamTimeout(), admission.connections(),
        admission.addresses(), admission.proxyProtocol(), admission.strangersGiveWay(),
        new GrpcEdgeMetrics(registry, server), time);
    negotiation = guard.wrap(negotiation);
    b.addTransportFilter(guard.channelFilter()); // before the PROXY protocol's, which replaces the remote address
    if (admission.proxyProtocol()) {
      negotiation = GrpcProxyProtocol.wrap(b, negotiation, config.proxyTrusted(), registry);
    }
    b.protocolNegotiator(negotiation);
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
