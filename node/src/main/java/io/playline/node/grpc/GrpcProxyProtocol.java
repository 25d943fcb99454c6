package io.playline.node.grpc;

import io.grpc.Attributes;
import io.grpc.Grpc;
import io.grpc.ServerTransportFilter;
import io.grpc.netty.InternalProtocolNegotiator;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.playline.node.edge.ProxyProtocolHandler;
import io.playline.node.edge.TrustedProxies;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PROXY protocol (v1 or v2) on the player gRPC port ({@code proxy.protocol}): every connection
 * must start with a header from the load balancer, read before TLS and HTTP/2; its source address
 * replaces the balancer's as the transport's remote address ({@code Grpc.TRANSPORT_ATTR_REMOTE_ADDR}),
 * which {@code connection.max.per.address} and the logs use. A connection without a valid header is
 * closed, and so is one from a peer outside {@code proxy.trusted.cidrs}, at accept. Built on gRPC's protocol-negotiator hook (an internal but public API): the header handler
 * runs in front of gRPC's own negotiation, and a transport filter swaps the address once the
 * transport is ready. Thread-safe.
 */
public final class GrpcProxyProtocol {
  private static final Logger log = LoggerFactory.getLogger(GrpcProxyProtocol.class);

  /** Balancer-side socket address of each open connection → the player's address from its header. */
  private final ConcurrentMap<SocketAddress, InetSocketAddress> clients = new ConcurrentHashMap<>();

  private GrpcProxyProtocol() {}

  /**
   * {@code next} behind a PROXY header that only peers in {@code trusted} may send (others are
   * counted in {@code playline.proxy.refused{port="grpc"}} and closed); adds to {@code builder} the
   * filter that hands the header's address to the calls.
   */
  public static InternalProtocolNegotiator.ProtocolNegotiator wrap(NettyServerBuilder builder,
      InternalProtocolNegotiator.ProtocolNegotiator next, TrustedProxies trusted, MeterRegistry registry) {
    GrpcProxyProtocol proxy = new GrpcProxyProtocol();
    builder.addTransportFilter(proxy.filter());
    return proxy.negotiator(next, trusted, ProxyProtocolHandler.refusedCounter(registry, "grpc"));
  }

  private InternalProtocolNegotiator.ProtocolNegotiator negotiator(InternalProtocolNegotiator.ProtocolNegotiator next,
      TrustedProxies trusted, Counter refused) {
    return InFrontOfNegotiation.wrap(next, (placeholder, grpcHandler) -> {
      if (!ProxyProtocolHandler.admits(placeholder.channel(), trusted, refused)) {
        return;
      }
      // [decoder, header, gRPC's negotiation] where the placeholder was
      placeholder.pipeline().addAfter(placeholder.name(), null, new Header());
      placeholder.pipeline().addAfter(placeholder.name(), null, new HAProxyMessageDecoder());
      placeholder.pipeline().remove(placeholder.handler());
    });
  }

  private ServerTransportFilter filter() {
    return new ServerTransportFilter() {
      @Override
      public Attributes transportReady(Attributes attributes) {
        SocketAddress balancer = attributes.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        InetSocketAddress client = balancer == null ? null : clients.get(balancer);
        return client == null ? attributes
            : attributes.toBuilder().set(Grpc.TRANSPORT_ATTR_REMOTE_ADDR, client).build();
      }
    };
  }

  /** Reads the header, remembers the player's address for the connection's life, then steps aside. */
  private final class Header extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
      if (!(msg instanceof HAProxyMessage header)) {
        super.channelRead(ctx, msg);
        return;
      }
      Channel channel = ctx.channel();
      InetSocketAddress source = ProxyProtocolHandler.source(channel, header);
      if (source != null) {
        SocketAddress balancer = channel.remoteAddress();
        ProxyProtocolHandler.remember(channel, source);
        clients.put(balancer, source);
        channel.closeFuture().addListener(f -> clients.remove(balancer));
      }
      ctx.pipeline().remove(this);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      log.debug("Closing {}: no valid PROXY protocol header ({})", ctx.channel().remoteAddress(), cause.toString());
      ctx.close();
    }
  }
}
