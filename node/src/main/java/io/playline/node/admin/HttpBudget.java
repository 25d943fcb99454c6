package io.playline.node.admin;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an HTTP/1.1 port lets clients spend: at most {@code maxConnections} open connections (more
 * are closed at accept), and a whole request within {@code requestTimeout} of connecting or of the
 * previous response (an idle timer would let a slowloris keep a connection forever with one header
 * byte now and then; the clock stops while a request is being answered), and nothing more is read
 * while the connection's unsent answers are over Netty's write-buffer high-water mark (a client
 * that sends requests and never reads the answers cannot grow the node's memory). Counted in {@code
 * <metric>{reason=connections|timeout}}. Used by the admin port ({@code admin.max.connections},
 * {@code admin.request.timeout}) and the internal API's HTTP port. Thread-safe; {@link
 * #deadline()} gives one handler per connection, confined to its event loop.
 */
public final class HttpBudget {
  private static final Logger log = LoggerFactory.getLogger(HttpBudget.class);

  private final String port;
  private final String connectionsKey;
  private final String timeoutKey;
  private final int maxConnections;
  private final Duration requestTimeout;
  private final AtomicInteger open = new AtomicInteger();
  private final Counter overCap;
  private final Counter timedOut;

  /**
   * @param port the port's name in logs ("admin")
   * @param metric the refusal counter's name
   * @param connectionsKey the setting {@code maxConnections} comes from (named in logs and the metric's description)
   * @param timeoutKey the setting {@code requestTimeout} comes from
   */
  public HttpBudget(String port, String metric, String connectionsKey, int maxConnections, String timeoutKey,
      Duration requestTimeout, MeterRegistry registry) {
    this.port = port;
    this.connectionsKey = connectionsKey;
    this.timeoutKey = timeoutKey;
    this.maxConnections = maxConnections;
    this.requestTimeout = requestTimeout;
    String description = port + " connections closed: over " + connectionsKey + ", or no whole request within "
        + timeoutKey;
    overCap = Counter.builder(metric).tag("reason", "connections").description(description).register(registry);
    timedOut = Counter.builder(metric).tag("reason", "timeout").description(description).register(registry);
  }

  /** The admin port's budget: {@code playline.admin.refused}. */
  static HttpBudget admin(AdminAccess access, MeterRegistry registry) {
    return new HttpBudget("admin", "playline.admin.refused", "admin.max.connections", access.maxConnections(),
        "admin.request.timeout", access.requestTimeout(), registry);
  }

  /** Counts {@code channel} until it closes; false (and closed) when the port has its maximum. */
  public boolean admit(Channel channel) {
    if (open.incrementAndGet() > maxConnections) {
      open.decrementAndGet();
      overCap.increment();
      log.debug("Closing {} connection {}: {} {} reached", port, channel.remoteAddress(), connectionsKey,
          maxConnections);
      channel.close();
      return false;
    }
    channel.closeFuture().addListener(f -> open.decrementAndGet());
    return true;
  }

  /** Connections open now. */
  public int open() {
    return open.get();
  }

  /**
   * A new connection's request deadline; goes between the request aggregator and the handler (it
   * sees whole requests coming in and the ends of responses going out).
   */
  public ChannelHandler deadline() {
    return new RequestDeadline();
  }

  private final class RequestDeadline extends ChannelDuplexHandler {
    private @Nullable ScheduledFuture<?> timer;
    /** Requests read and not yet answered in full. */
    private int answering;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      arm(ctx);
    }

    private void arm(ChannelHandlerContext ctx) {
      cancel();
      timer = ctx.executor().schedule(() -> {
        if (ctx.channel().isActive()) {
          timedOut.increment();
          log.debug("Closing {} connection {}: no whole request within {} {}", port, ctx.channel().remoteAddress(),
              timeoutKey, requestTimeout);
          ctx.close();
        }
      }, requestTimeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof FullHttpRequest) {
        answering++;
        cancel(); // the clock runs again once this request is answered
      }
      ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      if (msg instanceof LastHttpContent && answering > 0 && --answering == 0) {
        arm(ctx); // the next request on this connection gets a deadline of its own
      }
      ctx.write(msg, promise);
    }

    /** A client that does not read its answers is not read either: its answers stop at the socket's high-water mark. */
    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      ctx.channel().config().setAutoRead(ctx.channel().isWritable());
      ctx.fireChannelWritabilityChanged();
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
