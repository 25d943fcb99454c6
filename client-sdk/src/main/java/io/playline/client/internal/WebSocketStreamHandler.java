package io.playline.client.internal;

import com.google.protobuf.InvalidProtocolBufferException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler.ClientHandshakeStateEvent;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.playline.client.PlaylineException;
import io.playline.proto.lite.v1.ClientFrame;
import io.playline.proto.lite.v1.Error.Code;
import io.playline.proto.lite.v1.ServerFrame;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * One WebSocket connection as a {@link Transport.Connection}: each binary message from the gateway
 * is one {@code ServerFrame}, each {@code ClientFrame} goes out as one binary message. A close
 * frame becomes the failure {@link CloseCodes} says it is. Tells its listener {@code onClosed}
 * exactly once.
 *
 * <p>Confined to the channel's event loop (the client's loop).
 */
final class WebSocketStreamHandler extends SimpleChannelInboundHandler<WebSocketFrame> implements Transport.Connection {
  private static final ClientLog log = ClientLog.of(WebSocketStreamHandler.class);

  private final Transport.Listener listener;
  private @Nullable Channel channel;
  private boolean open;
  private boolean closing;
  private final ConnectionEnd ending;

  WebSocketStreamHandler(Transport.Listener listener) {
    this.listener = listener;
    this.ending = new ConnectionEnd(listener);
  }

  void attach(Channel ch) {
    channel = ch;
  }

  /** The TCP connect failed; the channel never became active. */
  void failed(@Nullable Throwable t) {
    ending.end(t);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt == ClientHandshakeStateEvent.HANDSHAKE_COMPLETE) {
      open = true;
      if (!closing) {
        listener.onOpen();
      }
    } else if (evt == ClientHandshakeStateEvent.HANDSHAKE_TIMEOUT) {
      ending.remember(new IOException("WebSocket upgrade timed out"));
      ctx.close();
    } else {
      super.userEventTriggered(ctx, evt);
    }
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) {
    if (frame instanceof BinaryWebSocketFrame) {
      ServerFrame decoded;
      try {
        decoded = ServerFrame.parseFrom(frame.content().nioBuffer());
      } catch (InvalidProtocolBufferException e) {
        ending.remember(new PlaylineException(Code.INTERNAL, "malformed frame from the gateway"));
        ctx.close();
        return;
      }
      if (!ending.ended()) {
        listener.onFrame(decoded);
      }
    } else if (frame instanceof CloseWebSocketFrame close) {
      ending.remember(CloseCodes.closeCause(close.statusCode(), close.reasonText()));
      closing = true;
      ctx.close();
    } else {
      log.debug("Ignoring a {} from the gateway", frame.getClass().getSimpleName());
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable t) {
    ending.remember(t);
    ctx.close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    ending.end(null);
    super.channelInactive(ctx);
  }


  @Override
  public void send(ClientFrame frame) {
    Channel ch = channel;
    if (ch == null || !open || closing || ending.ended()) {
      return;
    }
    int size = frame.getSerializedSize();
    ByteBuf buf = ch.alloc().buffer(size, size);
    try (ByteBufOutputStream out = new ByteBufOutputStream(buf)) {
      frame.writeTo(out);
    } catch (IOException | RuntimeException e) {
      buf.release();
      throw new IllegalStateException("cannot encode a client frame", e);
    }
    ch.writeAndFlush(new BinaryWebSocketFrame(buf), ch.voidPromise());
  }

  @Override
  public boolean isWritable() {
    Channel ch = channel;
    return ch != null && ch.isWritable();
  }

  @Override
  public void close() {
    Channel ch = channel;
    if (ch == null || closing || ending.ended()) {
      return;
    }
    closing = true;
    if (open && ch.isActive()) {
      ch.writeAndFlush(new CloseWebSocketFrame(WebSocketCloseStatus.NORMAL_CLOSURE))
          .addListener(ChannelFutureListener.CLOSE);
    } else {
      ch.close();
    }
  }
}
