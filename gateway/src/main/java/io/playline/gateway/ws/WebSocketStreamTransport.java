package io.playline.gateway.ws;

import com.google.protobuf.CodedOutputStream;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.playline.core.write.WriteOutcome;
import io.playline.gateway.session.GatewayMetrics;
import io.playline.gateway.stream.AckEncoding;
import io.playline.gateway.stream.StreamTransport;
import io.playline.node.edge.Probation;
import io.playline.node.edge.ProxyProtocolHandler;
import io.playline.node.errors.Errors;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.Error;
import io.playline.proto.v1.ServerFrame;
import io.playline.time.LogThrottle;
import io.playline.time.Time;
import java.io.IOException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The close step, last in a WebSocket connection's pipeline, and the connection as its session
 * sees it ({@link StreamTransport}): each {@code ServerFrame} goes out as one binary frame, encoded
 * with its frame header into one buffer ({@link BinaryFrames}; a heartbeat's ack without building a
 * message, {@link AckEncoding}), and every
 * frame written, pongs included ({@link #write}), counts against {@code connection.max.unsent.bytes}:
 * past it the connection is closed at once (SLOW_CONSUMER). {@link #closeWithError} sends the Error
 * frame and a close frame with code 4000 + {@link Code} number, stops decoding and half-closes
 * within {@link #CLOSE_GRACE_MS}. Confined to the channel's event loop.
 */
final class WebSocketStreamTransport extends ChannelInboundHandlerAdapter implements StreamTransport {
  private static final Logger log = LoggerFactory.getLogger(WebSocketStreamTransport.class);
  /** Connections closed for not reading: one line per interval, however many clients stop reading. */
  private static final LogThrottle SLOW_CONSUMERS = new LogThrottle(Time.SYSTEM);
  /**
   * How long the last error frame and the close frame get to reach a client before the socket is
   * closed anyway: a client that does not read would otherwise keep it open forever.
   */
  static final long CLOSE_GRACE_MS = 5_000;
  /** The name Netty's handshaker gives the WebSocket frame decoder. */
  static final String WS_DECODER = "wsdecoder";

  private final int maxUnsentBytes;
  private final GatewayMetrics metrics;
  private final Time time;
  private final BooleanSupplier admitted;
  private @Nullable ChannelHandlerContext ctx;
  private @Nullable Runnable endSession;
  private boolean closing;
  private @Nullable ScheduledFuture<?> grace;

  /**
   * @param maxUnsentBytes {@code connection.max.unsent.bytes}
   * @param admitted whether the connection was admitted under the connection caps ({@link
   *     ConnectionAdmission}): only then does it get the close grace
   */
  WebSocketStreamTransport(int maxUnsentBytes, GatewayMetrics metrics, Time time, BooleanSupplier admitted) {
    this.maxUnsentBytes = maxUnsentBytes;
    this.metrics = metrics;
    this.time = time;
    this.admitted = admitted;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  /** {@code end} ends the connection's session: run when this transport closes with an error. */
  void endsSessionWith(Runnable end) {
    this.endSession = end;
  }

  /** Whether the connection is closing: what the client still sends no longer matters. */
  boolean closing() {
    return closing;
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    ScheduledFuture<?> g = grace;
    if (g != null) {
      g.cancel(false);
      grace = null;
    }
    super.channelInactive(ctx);
  }

  @Override
  public void authenticated() {
    Probation.authenticated(context().channel());
  }

  @Override
  public EventExecutor executor() {
    return context().executor();
  }

  @Override
  public void send(ServerFrame frame) {
    ChannelHandlerContext c = context();
    if (closing) {
      return;
    }
    write(encode(c, frame));
  }

  @Override
  public void sendAck(long seq, String flagDate, boolean firstToday, @Nullable WriteOutcome outcome) {
    ChannelHandlerContext c = context();
    if (closing) {
      return;
    }
    ByteBuf frame = BinaryFrames.allocate(c.alloc(), AckEncoding.size(seq, flagDate, firstToday, outcome));
    try {
      AckEncoding.write(frame, seq, flagDate, firstToday, outcome);
      if (frame.isWritable()) {
        throw new IllegalStateException(frame.writableBytes() + " bytes of the ack's frame left unwritten");
      }
    } catch (RuntimeException e) {
      frame.release();
      throw e;
    }
    write(frame);
  }

  /**
   * Writes and flushes {@code frame} (a {@link WebSocketFrame}, or a whole frame's bytes from {@link
   * BinaryFrames}); past connection.max.unsent.bytes the connection is closed.
   */
  void write(Object frame) {
    ChannelHandlerContext c = context();
    c.writeAndFlush(frame, c.voidPromise());
    ChannelOutboundBuffer unsent = c.channel().unsafe().outboundBuffer();
    if (unsent != null && unsent.totalPendingWriteBytes() > maxUnsentBytes) {
      slowConsumer(c, unsent.totalPendingWriteBytes());
    }
  }

  /**
   * The peer stopped reading and the unsent bytes passed connection.max.unsent.bytes: closed at
   * once, dropping what waits (a close frame could never be delivered either).
   */
  private void slowConsumer(ChannelHandlerContext c, long unsentBytes) {
    closing = true;
    metrics.error(Code.SLOW_CONSUMER);
    long closed = SLOW_CONSUMERS.count();
    if (closed > 0) {
      log.info("{} WebSocket connection(s) closed since the last report: the client stopped reading (latest: {}, "
          + "{} bytes unsent, connection.max.unsent.bytes {}); counted in playline_errors_total{code=\"SLOW_CONSUMER\"}, "
          + "reported at most every {} s", closed, remoteAddress(), unsentBytes, maxUnsentBytes,
          SLOW_CONSUMERS.interval().toSeconds());
    }
    c.close();
  }

  @Override
  public boolean isWritable() {
    return context().channel().isWritable();
  }

  /**
   * Sends the Error frame and the close frame and ends the session, then stops reading frames (the
   * WebSocket decoder is replaced by one that drops bytes, so nothing the client still sends can
   * close the socket at once). An admitted connection is then half-closed ({@link #halfClose}) and
   * given {@link #CLOSE_GRACE_MS} to take its last frames; a refused one (over a connection cap, so
   * not counted) is closed as soon as they are flushed: a grace there would let a client past the
   * caps hold descriptors the caps do not see.
   */
  @Override
  public void closeWithError(long seq, Error error) {
    ChannelHandlerContext c = context();
    if (!c.executor().inEventLoop()) {
      c.executor().execute(() -> closeWithError(seq, error)); // e.g. the drain, from its own thread
      return;
    }
    if (closing) {
      return;
    }
    c.write(encode(c, Errors.frame(seq, error)), c.voidPromise());
    closing = true;
    dropInput(c);
    ChannelFuture written = c.writeAndFlush(new CloseWebSocketFrame(Errors.webSocketCloseCode(error.getCode()),
        truncate(error.getMessage())));
    if (admitted.getAsBoolean()) {
      written.addListener(f -> halfClose(c, f.isSuccess()));
    } else {
      written.addListener(f -> c.close());
    }
    grace = time.schedule(c.executor(), () -> {
      if (c.channel().isOpen()) {
        log.debug("Closing {}: its last frames were not taken within {} ms", remoteAddress(), CLOSE_GRACE_MS);
        c.close();
      }
    }, CLOSE_GRACE_MS, TimeUnit.MILLISECONDS);
    Runnable end = endSession;
    if (end != null) {
      // The session ends now, not when the socket closes: its push registration and its place in
      // the per-user counts go at once (a drain closes every connection this way).
      end.run();
    }
  }

  /** From now on the client's bytes are released undecoded. */
  private static void dropInput(ChannelHandlerContext c) {
    ChannelPipeline p = c.pipeline();
    if (p.get(WS_DECODER) != null) {
      p.replace(WS_DECODER, "wsdrop", new InputDropper());
    }
  }

  /**
   * The close frame is out: only the sending side is shut (FIN after the last frames), and what
   * the client still sends is read and dropped until it closes (or the close grace ends). Closing
   * the socket with unread input would make the node's TCP send a reset and drop what it had not
   * sent yet: a client that pipelined frames (its window full) lost the error and the close frame
   * and saw 1006. Over TLS the close_notify goes first ({@code shutdownOutput()} bypasses the
   * pipeline, so the SslHandler would never send it and a wss client would see a truncation).
   */
  private static void halfClose(ChannelHandlerContext c, boolean written) {
    if (!written || !(c.channel() instanceof DuplexChannel duplex) || !c.channel().isActive()) {
      c.close();
      return;
    }
    SslHandler ssl = c.pipeline().get(SslHandler.class);
    Future<?> notified = ssl == null ? c.newSucceededFuture() : ssl.closeOutbound();
    notified.addListener(sent -> {
      if (!sent.isSuccess() || !c.channel().isActive()) {
        c.close();
        return;
      }
      duplex.shutdownOutput().addListener(shut -> {
        if (!shut.isSuccess()) {
          c.close();
        }
      });
    });
  }

  /** Takes the WebSocket decoder's place once the connection is closing: releases what arrives. */
  private static final class InputDropper extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ReferenceCountUtil.release(msg);
    }
  }

  @Override
  public String remoteAddress() {
    return ctx == null ? "?" : String.valueOf(ProxyProtocolHandler.clientAddress(ctx.channel()));
  }

  private ChannelHandlerContext context() {
    ChannelHandlerContext c = ctx;
    if (c == null) {
      throw new IllegalStateException("handler not added");
    }
    return c;
  }

  /** {@code frame} as one binary WebSocket frame's bytes. */
  private static ByteBuf encode(ChannelHandlerContext ctx, ServerFrame frame) {
    int size = frame.getSerializedSize();
    ByteBuf buf = BinaryFrames.allocate(ctx.alloc(), size);
    try {
      // A view of the buffer's own memory, used only here: no duplicate made for it.
      CodedOutputStream out = CodedOutputStream.newInstance(buf.internalNioBuffer(buf.writerIndex(), size));
      frame.writeTo(out);
      out.checkNoSpaceLeft();
      buf.writerIndex(buf.writerIndex() + size);
    } catch (IOException | RuntimeException e) {
      buf.release();
      throw new IllegalStateException("cannot encode frame", e);
    }
    return buf;
  }

  /** A close frame's reason must fit in 123 bytes of UTF-8. */
  private static String truncate(String reason) {
    return reason.length() <= 100 ? reason : reason.substring(0, 100);
  }
}
