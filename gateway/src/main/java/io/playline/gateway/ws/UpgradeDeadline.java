package io.playline.gateway.ws;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler.HandshakeComplete;
import io.playline.node.edge.Deadlines;
import io.playline.node.edge.UnprovenHold;
import io.playline.time.Time;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection that has not finished its WebSocket upgrade within {@code handshake.timeout}
 * of connecting (within its last quarter: {@link Deadlines}): a socket that sends nothing, half a request, or a request that is not an upgrade
 * would otherwise hold a file descriptor and a channel forever (Netty's own handshake timeout only
 * starts once an upgrade request arrived). Once the upgrade completed it gives back the connection's
 * place among its address's unproven ones ({@link UnprovenHold}) and removes itself. One per
 * connection; runs on its event loop.
 */
final class UpgradeDeadline extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(UpgradeDeadline.class);

  private final Duration timeout;
  private final Time time;
  private final Runnable onTimeout;
  private @Nullable ScheduledFuture<?> deadline;

  UpgradeDeadline(Duration timeout, Time time, Runnable onTimeout) {
    this.timeout = timeout;
    this.time = time;
    this.onTimeout = onTimeout;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    deadline = time.schedule(ctx.executor(), () -> {
      if (ctx.channel().isActive()) {
        onTimeout.run();
        log.debug("Closing {}: no WebSocket upgrade within {}", ctx.channel().remoteAddress(), timeout);
        ctx.close();
      }
    }, Deadlines.spreadNanos(timeout), TimeUnit.NANOSECONDS);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof HandshakeComplete) {
      cancel();
      UnprovenHold.proven(ctx.channel());
      ctx.pipeline().remove(this);
    }
    super.userEventTriggered(ctx, evt);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    cancel();
    super.channelInactive(ctx);
  }

  private void cancel() {
    ScheduledFuture<?> d = deadline;
    if (d != null) {
      d.cancel(false);
      deadline = null;
    }
  }
}
