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
import io.playline.node.edge.ConnectionLimiter;
import io.playline.node.edge.Deadlines;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an HTTP/1.1 port lets clients spend: at most {@code maxConnections} open connections and, when
 * given, at most so many from one address (more are closed at accept), and a whole request within {@code requestTimeout} of connecting or of the
 * previous response (an idle timer would let a slowloris keep a connection forever with one header
 * byte now and then; the clock stops while a request is being answered), and nothing more is read
 * while the connection's unsent answers are over Netty's write-buffer high-water mark (a client
 * that sends requests and never reads the answers cannot grow the node's memory). Counted in {@code
 * <metric>{reason=connections|address|timeout}}. Used by the admin port ({@code admin.max.connections},
 * {@code admin.max.connections.per.address}, {@code admin.request.timeout}) and the internal API's HTTP port (with {@code
 * api.http.max.connections.per.address}). Thread-safe; {@link #deadline()} gives one handler per
 * connection, confined to its event loop.
 */
public final class HttpBudget {
  private static final Logger log = LoggerFactory.getLogger(HttpBudget.class);

  private final String port;
  private final Cap connections;
  private final @Nullable AddressCap perAddress;
  private final String timeoutKey;
  private final Duration requestTimeout;
  private final AtomicInteger open = new AtomicInteger();
  private final Counter overCap;
  private final Counter timedOut;

  /** The per-address cap: connections counted by remote address (the limiter's node-wide cap unused), refusals. */
  private record AddressCap(Cap cap, ConnectionLimiter counts, Counter refused) {}

  /**
   * A cap on open connections and the setting it comes from (named in logs and the metric's description).
   *
   * @param key the setting
   * @param max connections at most
   */
  public record Cap(String key, int max) {
    public Cap {
      if (max <= 0) {
        throw new IllegalArgumentException(key + ": " + max + " (expected: > 0)");
      }
    }
  }

  /**
   * @param port the port's name in logs ("admin")
   * @param metric the refusal counter's name
   * @param connections open connections on the port at most
   * @param perAddress of those, from one remote address at most (null: no such cap)
   * @param timeoutKey the setting {@code requestTimeout} comes from
   */
  public HttpBudget(String port, String metric, Cap connections, @Nullable Cap perAddress, String timeoutKey,
      Duration requestTimeout, MeterRegistry registry) {
    this.port = port;
    this.connections = connections;
    this.timeoutKey = timeoutKey;
    this.requestTimeout = requestTimeout;
    String description = port + " connections closed: over " + connections.key()
        + (perAddress == null ? "" : " or " + perAddress.key()) + ", or no whole request within " + timeoutKey;
    overCap = Counter.builder(metric).tag("reason", "connections").description(description).register(registry);
    timedOut = Counter.builder(metric).tag("reason", "timeout").description(description).register(registry);
    this.perAddress = perAddress == null ? null : new AddressCap(perAddress, new ConnectionLimiter(Integer.MAX_VALUE,
        perAddress.max()), Counter.builder(metric).tag("reason", "address").description(description).register(registry));
  }

  /** The admin port's budget: {@code playline.admin.refused}. */
  static HttpBudget admin(AdminAccess access, MeterRegistry registry) {
    return new HttpBudget("admin", "playline.admin.refused", new Cap("admin.max.connections", access.maxConnections()),
        new Cap("admin.max.connections.per.address", access.maxConnectionsPerAddress()), "admin.request.timeout",
        access.requestTimeout(), registry);
  }

  /** Counts {@code channel} until it closes; false (and closed) when the port or its address has its maximum. */
  public boolean admit(Channel channel) {
    if (open.incrementAndGet() > connections.max()) {
      open.decrementAndGet();
      return refuse(channel, overCap, connections);
    }
    AddressCap a = perAddress;
    InetAddress address = channel.remoteAddress() instanceof InetSocketAddress remote ? remote.getAddress() : null;
    if (a != null && address != null) {
      if (a.counts().admit(address) != null) {
        open.decrementAndGet();
        return refuse(channel, a.refused(), a.cap());
      }
      channel.closeFuture().addListener(f -> a.counts().release(address));
    }
    channel.closeFuture().addListener(f -> open.decrementAndGet());
    return true;
  }

  private boolean refuse(Channel channel, Counter refused, Cap cap) {
    refused.increment();
    log.debug("Closing {} connection {}: {} {} reached", port, channel.remoteAddress(), cap.key(), cap.max());
    channel.close();
    return false;
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
      }, Deadlines.spreadNanos(requestTimeout), TimeUnit.NANOSECONDS);
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
