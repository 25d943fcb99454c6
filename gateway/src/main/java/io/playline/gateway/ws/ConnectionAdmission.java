package io.playline.gateway.ws;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler.HandshakeComplete;
import io.playline.gateway.session.DecodedFrame;
import io.playline.node.edge.ConnectionLimiter;
import io.playline.node.edge.ProxyProtocolHandler;
import io.playline.proto.v1.Error.Code;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * The admission step of a WebSocket connection: once its upgrade completed (and its session
 * started, further down), counts it against the node's connection caps ({@code connection.max},
 * {@code connection.max.per.address}: {@link ConnectionLimiter}) until it closes. A connection over
 * a cap is refused through its session: a {@link DecodedFrame.Bad} {@code TOO_MANY_CONNECTIONS}
 * goes down the pipeline, so the client gets the Error frame and close code 4009, and the close step
 * gives it no grace ({@link #admitted}). Confined to the channel's event loop.
 */
final class ConnectionAdmission extends ChannelInboundHandlerAdapter {
  private final ConnectionLimiter limiter;
  private @Nullable InetAddress counted;
  private boolean admitted;

  ConnectionAdmission(ConnectionLimiter limiter) {
    this.limiter = limiter;
  }

  /** Whether the connection is counted under the caps (false before the upgrade and when refused). */
  boolean admitted() {
    return admitted;
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    super.userEventTriggered(ctx, evt);
    if (evt instanceof HandshakeComplete) {
      InetSocketAddress client = ProxyProtocolHandler.clientAddress(ctx.channel());
      InetAddress address = client == null ? null : client.getAddress();
      String refused = limiter.admit(address);
      if (refused == null) {
        admitted = true;
        counted = address;
      } else {
        ctx.fireChannelRead(new DecodedFrame.Bad(Code.TOO_MANY_CONNECTIONS, refused, false));
      }
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    if (admitted) {
      admitted = false;
      limiter.release(counted);
      counted = null;
    }
    super.channelInactive(ctx);
  }
}
