package io.playline.gateway.ws;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.playline.gateway.session.GatewayMetrics;
import io.playline.gateway.session.DecodedFrame;
import io.playline.proto.v1.Error.Code;
import io.playline.time.Time;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The ping budget of a WebSocket connection: takes the client's pings and pongs ({@link
 * ControlFrameInterceptor.ControlFrame}) and passes everything else on. Before authentication none
 * is accepted (only Auth is: {@code UNAUTHENTICATED}, or {@code PROTOCOL_VIOLATION} between Auth
 * and its answer; {@code playline.connections.control.refused{reason=before_auth}}); after it at most
 * {@code connection.max.pings.per.second}, counted in one-second windows: past that the connection
 * is refused {@code RATE_LIMITED} as abuse ({@code reason=rate}). A refusal goes down the pipeline
 * as a {@link DecodedFrame.Bad}, for the session step to answer. A ping within the budget is
 * answered with a pong through the close step's {@link WebSocketStreamTransport#write}, so pongs
 * count against {@code connection.max.unsent.bytes} like every other frame. Confined to the
 * channel's event loop.
 */
final class PingBudget extends ChannelInboundHandlerAdapter {
  private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final Supplier<SessionPhase> phase;
  private final WebSocketStreamTransport transport;
  private final GatewayMetrics metrics;
  private final Time time;
  private final int maxPerSecond;
  private long windowStartNanos;
  private int inWindow;

  /**
   * @param phase where the connection's session stands ({@link WebSocketSessionHandler#phase})
   * @param maxPerSecond {@code connection.max.pings.per.second}
   */
  PingBudget(Supplier<SessionPhase> phase, WebSocketStreamTransport transport, GatewayMetrics metrics, Time time,
      int maxPerSecond) {
    this.phase = phase;
    this.transport = transport;
    this.metrics = metrics;
    this.time = time;
    this.maxPerSecond = maxPerSecond;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof ControlFrameInterceptor.ControlFrame control) {
      onControl(ctx, control);
    } else {
      ctx.fireChannelRead(msg);
    }
  }

  private void onControl(ChannelHandlerContext ctx, ControlFrameInterceptor.ControlFrame control) {
    SessionPhase now = phase.get();
    if (now == SessionPhase.NONE) {
      return;
    }
    if (now != SessionPhase.OPEN) {
      metrics.controlBeforeAuth();
      // Between Auth and its answer, as any frame there: not UNAUTHENTICATED, which clients take as a
      // refused credential (and drop their session id).
      ctx.fireChannelRead(now == SessionPhase.AUTHENTICATING
          ? new DecodedFrame.Bad(Code.PROTOCOL_VIOLATION, "wait for auth_ok before sending a " + control.kind(), false)
          : new DecodedFrame.Bad(Code.UNAUTHENTICATED, "only an auth frame is accepted before authentication (got a "
              + control.kind() + ")", false));
      return;
    }
    long nanos = time.nanoTime();
    if (nanos - windowStartNanos >= WINDOW_NANOS) {
      windowStartNanos = nanos;
      inWindow = 0;
    }
    if (++inWindow > maxPerSecond) {
      metrics.pingRateExceeded();
      ctx.fireChannelRead(new DecodedFrame.Bad(Code.RATE_LIMITED, "more than " + maxPerSecond
          + " pings and pongs per second", true));
    } else if (control.ping()) {
      transport.write(new PongWebSocketFrame(Unpooled.wrappedBuffer(control.payload())));
    }
  }
}
