package io.playline.gateway.grpc;

import io.grpc.Attributes;
import io.grpc.Grpc;
import io.grpc.ServerTransportFilter;
import io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.InternalProtocolNegotiator;
import io.grpc.netty.InternalProtocolNegotiators;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerAdapter;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.util.AsciiString;
import io.playline.gateway.ws.ProxyProtocolHandler;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PROXY protocol (v1 or v2) on the player gRPC port ({@code proxy.protocol}): every connection
 * must start with a header from the load balancer, read before TLS and HTTP/2; its source address
 * replaces the balancer's as the transport's remote address ({@code Grpc.TRANSPORT_ATTR_REMOTE_ADDR}),
 * which {@code connection.max.per.address} and the logs use. A connection without a valid header is
 * closed. Built on gRPC's protocol-negotiator hook (an internal but public API): the header handler
 * runs in front of gRPC's own negotiation, and a transport filter swaps the address once the
 * transport is ready. Thread-safe.
 */
public final class GrpcProxyProtocol {
  private static final Logger log = LoggerFactory.getLogger(GrpcProxyProtocol.class);

  /** Balancer-side socket address of each open connection → the player's address from its header. */
  private final ConcurrentMap<SocketAddress, InetSocketAddress> clients = new ConcurrentHashMap<>();

  private GrpcProxyProtocol() {}

  /** Makes {@code builder}'s server read PROXY headers, over TLS with {@code tls} when not null. */
  public static void apply(NettyServerBuilder builder, @Nullable SslContext tls) {
    GrpcProxyProtocol proxy = new GrpcProxyProtocol();
    InternalProtocolNegotiator.ProtocolNegotiator delegate = tls == null
        ? InternalProtocolNegotiators.serverPlaintext() : InternalProtocolNegotiators.serverTls(tls);
    builder.protocolNegotiator(proxy.negotiator(delegate));
    builder.addTransportFilter(proxy.filter());
  }

  private InternalProtocolNegotiator.ProtocolNegotiator negotiator(InternalProtocolNegotiator.ProtocolNegotiator next) {
    return new InternalProtocolNegotiator.ProtocolNegotiator() {
      @Override
      public AsciiString scheme() {
        return next.scheme();
      }

      @Override
      public ChannelHandler newHandler(GrpcHttp2ConnectionHandler grpcHandler) {
        ChannelHandler negotiation = next.newHandler(grpcHandler);
        return new ChannelHandlerAdapter() {
          @Override
          public void handlerAdded(ChannelHandlerContext ctx) {
            // [decoder, header, gRPC's negotiation] where this placeholder was
            ctx.pipeline().addAfter(ctx.name(), null, negotiation);
            ctx.pipeline().addAfter(ctx.name(), null, new Header());
            ctx.pipeline().addAfter(ctx.name(), null, new HAProxyMessageDecoder());
            ctx.pipeline().remove(this);
          }
        };
      }

      @Override
      public void close() {
        next.close();
      }
    };
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
