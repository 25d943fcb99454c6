package io.playline.gateway.ws;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.playline.gateway.session.DecodedFrame;
import io.playline.gateway.session.FrameDecoder;
import io.playline.proto.v1.Error.Code;

/**
 * The decode step of a WebSocket connection: each message becomes one {@link DecodedFrame} for the
 * session step. A binary message is one {@code ClientFrame} ({@link FrameDecoder}); a text message
 * is {@code UNSUPPORTED_FRAME}; a message over {@code frame.max.bytes} is {@code FRAME_TOO_LARGE};
 * invalid WebSocket framing and bytes that are no {@code ClientFrame} are {@code
 * PROTOCOL_VIOLATION}, as abuse. Framing failures arrive as {@link
 * ControlFrameInterceptor.BadFraming} (from Netty's frame decoder) or as exceptions (from the
 * fragment aggregator); other exceptions and messages pass on. Releases the frames it decodes.
 * Confined to the channel's event loop.
 */
final class WebSocketFrameDecoder extends ChannelInboundHandlerAdapter {
  private final FrameDecoder frames;
  private final int maxFrameBytes;

  /** @param maxFrameBytes {@code frame.max.bytes}, as the client is told when over it */
  WebSocketFrameDecoder(FrameDecoder frames, int maxFrameBytes) {
    this.frames = frames;
    this.maxFrameBytes = maxFrameBytes;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof WebSocketFrame frame) {
      DecodedFrame decoded;
      try {
        decoded = frame instanceof BinaryWebSocketFrame ? frames.decode(frame.content().nioBuffer())
            : new DecodedFrame.Bad(Code.UNSUPPORTED_FRAME, "only binary frames carrying a protobuf ClientFrame are accepted",
                false);
      } finally {
        frame.release();
      }
      ctx.fireChannelRead(decoded);
    } else if (msg instanceof ControlFrameInterceptor.BadFraming bad) {
      exceptionCaught(ctx, bad.cause());
    } else {
      ctx.fireChannelRead(msg);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (isFraming(cause)) {
      ctx.fireChannelRead(badFraming(cause));
    } else {
      ctx.fireExceptionCaught(cause);
    }
  }

  private static boolean isFraming(Throwable cause) {
    return cause instanceof TooLongFrameException || cause instanceof CorruptedFrameException;
  }

  private DecodedFrame.Bad badFraming(Throwable cause) {
    if (cause instanceof TooLongFrameException || isTooBig(cause)) {
      return new DecodedFrame.Bad(Code.FRAME_TOO_LARGE, "frame larger than " + maxFrameBytes + " bytes", false);
    }
    return new DecodedFrame.Bad(Code.PROTOCOL_VIOLATION, "invalid WebSocket framing", true);
  }

  private static boolean isTooBig(Throwable cause) {
    return cause instanceof CorruptedWebSocketFrameException c
        && c.closeStatus() != null && c.closeStatus().equals(WebSocketCloseStatus.MESSAGE_TOO_BIG);
  }
}
