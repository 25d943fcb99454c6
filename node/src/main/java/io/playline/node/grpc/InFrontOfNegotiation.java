package io.playline.node.grpc;

import io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.InternalProtocolNegotiator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerAdapter;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.AsciiString;

/**
 * gRPC's protocol-negotiator hook (an internal but public API), used to put handlers in front of a
 * server's own negotiation (plain text or TLS) on every new connection. Stateless.
 */
final class InFrontOfNegotiation {
  /** What runs on each new connection, before its negotiation; may add handlers after {@code placeholder}. */
  @FunctionalInterface
  interface Front {
    /**
     * {@code placeholder}: this connection's handler right in front of the negotiation; it stays
     * (a no-op) unless {@code front} removes it.
     */
    void added(ChannelHandlerContext placeholder, GrpcHttp2ConnectionHandler grpcHandler);
  }

  private InFrontOfNegotiation() {}

  static InternalProtocolNegotiator.ProtocolNegotiator wrap(InternalProtocolNegotiator.ProtocolNegotiator next,
      Front front) {
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
            ctx.pipeline().addAfter(ctx.name(), null, negotiation);
            front.added(ctx, grpcHandler);
          }
        };
      }

      @Override
      public void close() {
        next.close();
      }
    };
  }
}
