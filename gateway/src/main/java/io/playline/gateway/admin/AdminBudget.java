package io.playline.gateway.admin;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the admin port lets clients spend: at most {@code admin.max.connections} open connections
 * (more are closed at accept), and a whole request within {@code admin.request.timeout} of
 * connecting or of the previous request (an idle timer would let a slowloris keep a connection
 * forever with one header byte now and then). Counted in {@code
 * playline.admin.refused{reason=connections|timeout}}. Thread-safe; {@link #deadline()} gives one
 * handler per connection, confined to its event loop.
 */
final class AdminBudget {
  private static final Logger log = LoggerFactory.getLogger(AdminBudget.class);

  private final int maxConnections;
  private final Duration requestTimeout;
  private final AtomicInteger open = new AtomicInteger();
  private final Counter overCap;
  private final Counter timedOut;

  AdminBudget(AdminAccess access, MeterRegistry registry) {
    this.maxConnections = access.maxConnections();
    this.requestTimeout = access.requestTimeout();
    overCap = refused(registry, "connections");
    timedOut = refused(registry, "timeout");
  }

  private static Counter refused(MeterRegistry registry, String reason) {
    return Counter.builder("playline.admin.refused").tag("reason", reason)
        .description("Admin connections closed: over admin.max.connections, or no whole request within "
            + "admin.request.timeout").register(registry);
  }

  /** Counts {@code channel} until it closes; false (and closed) when the port has its maximum. */
  boolean admit(Channel channel) {
    if (open.incrementAndGet() > maxConnections) {
      open.decrementAndGet();
      overCap.increment();
      log.debug("Closing admin connection {}: admin.max.connections {} reached", channel.remoteAddress(),
          maxConnections);
      channel.close();
      return false;
    }
    channel.closeFuture().addListener(f -> open.decrementAndGet());
    return true;
  }

  /** A new connection's request deadline; goes between the request aggregator and the handler. */
  ChannelInboundHandlerAdapter deadline() {
    return new RequestDeadline();
  }

  private final class RequestDeadline extends ChannelInboundHandlerAdapter {
    private @Nullable ScheduledFuture<?> timer;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      arm(ctx);
    }

    private void arm(ChannelHandlerContext ctx) {
      cancel();
      timer = ctx.executor().schedule(() -> {
        if (ctx.channel().isActive()) {
          timedOut.increment();
          log.debug("Closing admin connection {}: no whole request within admin.request.timeout {}",
              ctx.channel().remoteAddress(), requestTimeout);
          ctx.close();
        }
      }, requestTimeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof FullHttpRequest) {
        arm(ctx); // the next request on this connection gets a deadline of its own
      }
      ctx.fireChannelRead(msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      cancel();
      ctx.fireChannelInactive();
    }

    private void cancel() {
      ScheduledFuture<?> t = timer;
      if (t != null) {
        t.cancel(false);
        timer = null;
      }
    }
  }
}
