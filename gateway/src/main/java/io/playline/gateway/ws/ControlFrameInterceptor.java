package io.playline.gateway.ws;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;

/**
 * Takes client pings and pongs out of Netty's hands: its {@code WebSocketServerProtocolHandler}
 * answers every ping with a pong at once, before authentication, at any rate and past {@code
 * connection.max.unsent.bytes} (one socket that never read queued 145 MiB of pongs). Sits between
 * the frame decoder and that handler and turns each into a {@link ControlFrame}, which Netty's
 * handlers pass on untouched, for {@link PingBudget} to refuse or answer within the connection's
 * budgets. Framing failures of the decoder in front of it (an oversized or malformed frame) go the
 * same way as a {@link BadFraming}, for {@link WebSocketFrameDecoder}: Netty's handler would close
 * the socket at once on them, with the client's frame still unread, and the client would see a
 * reset instead of the error and the close frame. Stateless; one per connection.
 */
final class ControlFrameInterceptor extends ChannelInboundHandlerAdapter {
  /** A ping ({@code ping}) or pong from the client, with its payload (at most 125 bytes). */
  record ControlFrame(boolean ping, byte[] payload) {
    String kind() {
      return ping ? "ping" : "pong";
    }
  }

  /** The WebSocket decoder refused the client's bytes: an oversized frame or broken framing. */
  record BadFraming(Throwable cause) {}

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof CorruptedFrameException || cause instanceof TooLongFrameException) {
      ctx.fireChannelRead(new BadFraming(cause));
    } else {
      ctx.fireExceptionCaught(cause);
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
