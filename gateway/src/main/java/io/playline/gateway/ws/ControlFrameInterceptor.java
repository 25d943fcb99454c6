package io.playline.gateway.ws;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;

/**
 * Takes client pings and pongs out of Netty's hands: its {@code WebSocketServerProtocolHandler}
 * answers every ping with a pong at once, before authentication, at any rate and past {@code
 * connection.max.unsent.bytes} (one socket that never read queued 145 MiB of pongs). Sits between
 * the frame decoder and that handler and turns each into a {@link ControlFrame}, which Netty's
 * handlers pass on untouched, for {@link WebSocketFrameHandler} to refuse or answer within the
 * connection's budgets. Stateless; one per connection.
 */
final class ControlFrameInterceptor extends ChannelInboundHandlerAdapter {
  /** A ping ({@code ping}) or pong from the client, with its payload (at most 125 bytes). */
  record ControlFrame(boolean ping, byte[] payload) {
    String kind() {
      return ping ? "ping" : "pong";
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof PingWebSocketFrame || msg instanceof PongWebSocketFrame) {
      var frame = (io.netty.handler.codec.http.websocketx.WebSocketFrame) msg;
      try {
        ctx.fireChannelRead(new ControlFrame(msg instanceof PingWebSocketFrame, ByteBufUtil.getBytes(frame.content())));
      } finally {
        frame.release();
      }
      return;
    }
    ctx.fireChannelRead(msg);
  }
}
