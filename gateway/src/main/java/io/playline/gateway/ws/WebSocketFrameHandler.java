package io.playline.gateway.ws;

import com.google.protobuf.InvalidProtocolBufferException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler.HandshakeComplete;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.playline.gateway.heartbeat.HeartbeatPeek;
import io.playline.gateway.session.SessionServices;
import io.playline.gateway.session.StreamSession;
import io.playline.gateway.stream.StreamTransport;
import io.playline.node.edge.AddressBudgets;
import io.playline.node.edge.ConnectionLimiter;
import io.playline.node.edge.IntervalLog;
import io.playline.node.edge.Probation;
import io.playline.node.edge.ProxyProtocolHandler;
import io.playline.node.errors.Errors;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.Error;
import io.playline.proto.v1.ServerFrame;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adapts one WebSocket channel to a {@link StreamSession}: each binary frame is one {@code
 * ClientFrame}, each {@code ServerFrame} goes out as one binary frame; text frames, malformed
 * protobuf and oversized frames close the connection with an Error frame and close code 4000 +
 * {@link Code} number, and so do pings and pongs before authentication or past their rate. A ping
 * flood, invalid framing or a malformed frame is abuse: it closes this connection, and only this
 * one, and is counted ({@link AddressBudgets#abused}: a strike on the address only when no player
 * authenticated on the connection). Every
 * frame it writes, pongs included, counts against {@code connection.max.unsent.bytes}. Confined
 * to the channel's event loop.
 */
final class WebSocketFrameHandler extends SimpleChannelInboundHandler<WebSocketFrame> implements StreamTransport {
  private static final Logger log = LoggerFactory.getLogger(WebSocketFrameHandler.class);
  /** Connections closed for not reading: one line per interval, however many clients stop reading. */
  private static final IntervalLog SLOW_CONSUMERS = new IntervalLog();
  /**
   * How long the last error frame and the close frame get to reach a client before the socket is
   * closed anyway: a client that does not read would otherwise keep it open forever.
   */
  static final long CLOSE_GRACE_MS = 5_000;
  /** The name Netty's handshaker gives the WebSocket frame decoder. */
  private static final String WS_DECODER = "wsdecoder";

  private final SessionServices services;
  private final ConnectionLimiter limiter;
  private final AddressBudgets addresses;
  private @Nullable ChannelHandlerContext ctx;
  private @Nullable StreamSession session;
  private @Nullable InetAddress limitedAddress;
  private boolean admitted;
  private boolean closing;
  private @Nullable ScheduledFuture<?> grace;
  private long pingWindowStartNanos;
  private int pingsInWindow;

  WebSocketFrameHandler(SessionServices services, ConnectionLimiter limiter, AddressBudgets addresses) {
    this.services = services;
    this.limiter = limiter;
    this.addresses = addresses;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof HandshakeComplete) {
      StreamSession s = new StreamSession(this, services);
      session = s;
      s.start();
      InetSocketAddress client = ProxyProtocolHandler.clientAddress(ctx.channel());
      InetAddress address = client == null ? null : client.getAddress();
      String refused = limiter.admit(address);
      if (refused == null) {
        admitted = true;
        limitedAddress = address;
      } else {
        s.onBadFrame(Code.TOO_MANY_CONNECTIONS, refused);
      }
      return;
    }
    super.userEventTriggered(ctx, evt);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (msg instanceof ControlFrameInterceptor.ControlFrame control) {
      onControl(ctx, control);
    } else if (msg instanceof ControlFrameInterceptor.BadFraming bad) {
      exceptionCaught(ctx, bad.cause());
    } else {
      super.channelRead(ctx, msg);
    }
  }

  /**
   * A ping or pong: refused before authentication (only Auth is), limited to {@code
   * connection.max.pings.per.second} after it; a ping is answered with a pong that counts against
   * {@code connection.max.unsent.bytes} like every other frame.
   */
  private void onControl(ChannelHandlerContext ctx, ControlFrameInterceptor.ControlFrame control) {
    StreamSession s = session;
    if (s == null || closing) {
      return;
    }
    if (s.identity() == null) {
      services.metrics().controlBeforeAuth();
      if (s.authenticating()) {
        // As any frame between Auth and its answer: not UNAUTHENTICATED, which clients take as a
        // refused credential (and drop their session id).
        s.onBadFrame(Code.PROTOCOL_VIOLATION, "wait for auth_ok before sending a " + control.kind());
      } else {
        s.onBadFrame(Code.UNAUTHENTICATED, "only an auth frame is accepted before authentication (got a "
            + control.kind() + ")");
      }
      return;
    }
    long now = services.time().nanoTime();
    if (now - pingWindowStartNanos >= TimeUnit.SECONDS.toNanos(1)) {
      pingWindowStartNanos = now;
      pingsInWindow = 0;
    }
    int limit = services.config().maxPingsPerSecond();
    if (++pingsInWindow > limit) {
      services.metrics().pingRateExceeded();
      penalize(ctx);
      s.onBadFrame(Code.RATE_LIMITED, "more than " + limit + " pings and pongs per second");
    } else if (control.ping()) {
      write(ctx, new PongWebSocketFrame(Unpooled.wrappedBuffer(control.payload())));
    }
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) {
    StreamSession s = session;
    if (s == null || closing) {
      return;
    }
    if (!(frame instanceof BinaryWebSocketFrame)) {
      s.onBadFrame(Code.UNSUPPORTED_FRAME, "only binary frames carrying a protobuf ClientFrame are accepted");
      return;
    }
    ClientFrame decoded;
    try {
      decoded = HeartbeatPeek.decode(frame.content().nioBuffer(), s.refusesEvents());
    } catch (InvalidProtocolBufferException e) {
      penalize(ctx);
      s.onBadFrame(Code.PROTOCOL_VIOLATION, "malformed frame: not a protobuf ClientFrame");
      return;
    }
    s.onFrame(decoded);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    ScheduledFuture<?> g = grace;
    if (g != null) {
      g.cancel(false);
      grace = null;
    }
    if (session != null) {
      session.onTransportClosed();
    }
    if (limitedAddress != null) {
      limiter.release(limitedAddress);
      limitedAddress = null;
    }
    super.channelInactive(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    StreamSession s = session;
    if (closing && (cause instanceof CorruptedFrameException || cause instanceof TooLongFrameException)) {
      return; // draining: the client's frames no longer matter
    }
    if (s != null && (cause instanceof TooLongFrameException || isTooBig(cause))) {
      s.onBadFrame(Code.FRAME_TOO_LARGE, "frame larger than " + services.config().maxFrameBytes() + " bytes");
    } else if (s != null && (cause instanceof CorruptedFrameException)) {
      penalize(ctx);
      s.onBadFrame(Code.PROTOCOL_VIOLATION, "invalid WebSocket framing");
    } else if (cause instanceof IOException || cause instanceof PrematureChannelClosureException) {
      // The peer went away, possibly in the middle of a fragmented message: nothing to answer.
      log.debug("Connection {} failed: {}", remoteAddress(), cause.toString());
      ctx.close();
    } else {
      log.warn("Unexpected failure on {}", remoteAddress(), cause);
      if (s != null) {
        s.onBadFrame(Code.INTERNAL, "internal error");
      } else {
        ctx.close();
      }
    }
  }

  /**
   * The client abused the connection (the caller closes it): counted, and a strike on its address
   * when no player authenticated on it (a player's address is shared with honest neighbours).
   */
  private void penalize(ChannelHandlerContext ctx) {
    InetSocketAddress client = ProxyProtocolHandler.clientAddress(ctx.channel());
    if (client != null && client.getAddress() != null) {
      addresses.abused(client.getAddress(), AddressBudgets.Transport.WS, Probation.isPlayer(ctx.channel()));
    }
  }

  @Override
  public void authenticated() {
    Probation.authenticated(context().channel());
  }

  private static boolean isTooBig(Throwable cause) {
    return cause instanceof CorruptedWebSocketFrameException c
        && c.closeStatus() != null && c.closeStatus().equals(WebSocketCloseStatus.MESSAGE_TOO_BIG);
  }

  // StreamTransport

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
    write(c, new BinaryWebSocketFrame(encode(c, frame)));
  }

  /** Writes and flushes {@code frame}; past connection.max.unsent.bytes the connection is closed. */
  private void write(ChannelHandlerContext c, WebSocketFrame frame) {
    c.writeAndFlush(frame, c.voidPromise());
    ChannelOutboundBuffer unsent = c.channel().unsafe().outboundBuffer();
    if (unsent != null && unsent.totalPendingWriteBytes() > services.config().maxUnsentBytes()) {
      slowConsumer(c, unsent.totalPendingWriteBytes());
    }
  }

  /**
   * The peer stopped reading and the unsent bytes passed connection.max.unsent.bytes: closed at
   * once, dropping what waits (a close frame could never be delivered either).
   */
  private void slowConsumer(ChannelHandlerContext c, long unsentBytes) {
    closing = true;
    services.metrics().error(Code.SLOW_CONSUMER);
    long closed = SLOW_CONSUMERS.count();
    if (closed > 0) {
      log.info("{} WebSocket connection(s) closed since the last report: the client stopped reading (latest: {}, "
          + "{} bytes unsent, connection.max.unsent.bytes {}); counted in playline_errors_total{code=\"SLOW_CONSUMER\"}, "
          + "reported at most every {} s", closed, remoteAddress(), unsentBytes, services.config().maxUnsentBytes(),
          SLOW_CONSUMERS.intervalSeconds());
    }
    c.close();
  }

  @Override
  public boolean isWritable() {
    return context().channel().isWritable();
  }

  /**
   * Sends the Error frame and the close frame and ends the session, then stops reading frames (the WebSocket decoder is
   * replaced by one that drops bytes, so nothing the client still sends can close the socket at
   * once). An admitted connection is then half-closed ({@link #halfClose}) and given {@link
   * #CLOSE_GRACE_MS} to take its last frames; a refused one (over a connection cap, so not counted)
   * is closed as soon as they are flushed: a grace there would let a client past the caps hold
   * descriptors the caps do not see.
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
    c.write(new BinaryWebSocketFrame(encode(c, Errors.frame(seq, error))), c.voidPromise());
    closing = true;
    dropInput(c);
    ChannelFuture written = c.writeAndFlush(new CloseWebSocketFrame(Errors.webSocketCloseCode(error.getCode()),
        truncate(error.getMessage())));
    if (admitted) {
      written.addListener(f -> halfClose(c, f.isSuccess()));
    } else {
      written.addListener(f -> c.close());
    }
    grace = services.time().schedule(c.executor(), () -> {
      if (c.channel().isOpen()) {
        log.debug("Closing {}: its last frames were not taken within {} ms", remoteAddress(), CLOSE_GRACE_MS);
        c.close();
      }
    }, CLOSE_GRACE_MS, TimeUnit.MILLISECONDS);
    StreamSession s = session;
    if (s != null) {
      // The session ends now, not when the socket closes: its push registration and its place in
      // the per-user counts go at once (a drain closes every connection this way).
      s.onTransportClosed();
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

  private static ByteBuf encode(ChannelHandlerContext ctx, ServerFrame frame) {
    int size = frame.getSerializedSize();
    ByteBuf buf = ctx.alloc().buffer(size, size);
    try (ByteBufOutputStream out = new ByteBufOutputStream(buf)) {
      frame.writeTo(out);
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
