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
import io.netty.util.AttributeKey;
import io.playline.node.edge.AddressPrefixes;
import io.playline.node.edge.ConnectionLimiter;
import io.playline.node.edge.Deadlines;
import io.playline.node.edge.GiveWayLine;
import io.playline.time.Time;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an HTTP/1.1 port lets clients spend: at most {@code maxConnections} open connections and, when
 * given, at most so many from one address ({@link AddressPrefixes#DEFAULT}: an IPv4 /32, an IPv6
 * /64; more are closed at accept), and a whole request within {@code requestTimeout} of connecting or of the
 * previous response (an idle timer would let a slowloris keep a connection forever with one header
 * byte now and then; the clock stops while a request is being answered), and nothing more is read
 * while the connection's unsent answers are over Netty's write-buffer high-water mark (a client
 * that sends requests and never reads the answers cannot grow the node's memory). Counted in {@code
 * <metric>{reason=connections|address|timeout|evicted}}.
 *
 * <p>Strangers cannot fill the port: when it is full, a new connection takes the place of the
 * least recently active idle connection (no request being answered) that has not {@link #proven
 * proven} itself (served a request that carried a valid credential), from the address holding
 * the most connections, which is closed ({@code reason=evicted}; an HTTP client reopens an idle
 * keep-alive connection it finds closed). So a probe
 * or a backend arriving at a port held by strangers' idle or slowloris connections is always let in,
 * while the connections of authenticated clients are never taken by newcomers. Only when every
 * connection is proven or busy is a new one refused. Used by the admin port ({@code admin.max.connections},
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
  private final Time time;
  private final AtomicInteger open = new AtomicInteger();
  private final Counter overCap;
  private final Counter timedOut;
  private final Counter evicted;
  /** The open connections; the lock of everything below and of each {@link Conn}'s state. */
  private final Map<Channel, Conn> conns = new HashMap<>();
  /** The open connections by address, and those that may give way (idle, unproven) by when each was last active. */
  private final GiveWayLine<Channel> line = new GiveWayLine<>();
  /** When a connection was last active: a count of admissions and requests read. */
  private long activity;
  private static final AttributeKey<Conn> CONN = AttributeKey.valueOf(HttpBudget.class, "conn");

  /** One open connection's state: changed on its event loop under {@link #conns}' lock. */
  private static final class Conn {
    final HttpBudget budget;
    /** The remote address's prefix ({@link AddressPrefixes#DEFAULT}), null when it has none. */
    final @Nullable InetAddress address;
    /** When it was admitted or last read a request (see {@link #activity}). */
    long lastActive;
    /** Requests read and not yet answered in full. */
    int answering;
    volatile boolean proven;

    Conn(HttpBudget budget, @Nullable InetAddress address) {
      this.budget = budget;
      this.address = address;
    }

    /** Whether it may give way to a newcomer: idle (no request being answered) and not proven. */
    boolean mayGiveWay() {
      return !proven && answering == 0;
    }
  }

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
   * @param time what {@code requestTimeout} passes by
   */
  public HttpBudget(String port, String metric, Cap connections, @Nullable Cap perAddress, String timeoutKey,
      Duration requestTimeout, MeterRegistry registry, Time time) {
    this.port = port;
    this.time = time;
    this.connections = connections;
    this.timeoutKey = timeoutKey;
    this.requestTimeout = requestTimeout;
    String description = port + " connections closed: over " + connections.key()
        + (perAddress == null ? "" : " or " + perAddress.key()) + ", or no whole request within " + timeoutKey;
    overCap = Counter.builder(metric).tag("reason", "connections").description(description).register(registry);
    timedOut = Counter.builder(metric).tag("reason", "timeout").description(description).register(registry);
    evicted = Counter.builder(metric).tag("reason", "evicted").description(port + " connections closed to make room "
        + "for a new one: the least recently active idle connection that never proved a credential, when the port is "
        + "at " + connections.key()).register(registry);
    this.perAddress = perAddress == null ? null : new AddressCap(perAddress, new ConnectionLimiter(Integer.MAX_VALUE,
        perAddress.max()), Counter.builder(metric).tag("reason", "address").description(description).register(registry));
  }

  /** The admin port's budget: {@code playline.admin.refused}. */
  static HttpBudget admin(AdminConfig access, MeterRegistry registry, Time time) {
    return new HttpBudget("admin", "playline.admin.refused", new Cap("admin.max.connections", access.maxConnections()),
        new Cap("admin.max.connections.per.address", access.maxConnectionsPerAddress()), "admin.request.timeout",
        access.requestTimeout(), registry, time);
  }

  /**
   * Counts {@code channel} until it closes; false (and closed) when its address has its maximum, or
   * the port has its maximum and no idle unproven connection gives way.
   */
  public boolean admit(Channel channel) {
    AddressCap a = perAddress;
    InetAddress address = channel.remoteAddress() instanceof InetSocketAddress remote ? remote.getAddress() : null;
    boolean countedAddress = a != null && address != null;
    if (countedAddress && a.counts().admit(address) != null) {
      return refuse(channel, a.refused(), a.cap());
    }
    if (open.incrementAndGet() > connections.max()) {
      Channel idle = evictable();
      if (idle == null) {
        open.decrementAndGet();
        if (countedAddress) {
          a.counts().release(address);
        }
        return refuse(channel, overCap, connections);
      }
      evicted.increment();
      log.debug("Closing idle {} connection {} for a new one: {} {} reached", port, idle.remoteAddress(),
          connections.key(), connections.max());
      idle.close(); // its closeFuture gives its place back; the newcomer holds one meanwhile
    }
    if (countedAddress) {
      channel.closeFuture().addListener(f -> a.counts().release(address));
    }
    Conn conn = new Conn(this, address == null ? null : AddressPrefixes.DEFAULT.key(address));
    channel.attr(CONN).set(conn);
    synchronized (conns) {
      conns.put(channel, conn);
      conn.lastActive = ++activity;
      line.opened(conn.address);
      line.mayGiveWay(conn.address, conn.lastActive, channel);
    }
    channel.closeFuture().addListener(f -> {
      synchronized (conns) {
        if (conns.remove(channel) != null) { // else it gave way, and left the line then
          line.closed(conn.address, conn.lastActive);
        }
      }
      open.decrementAndGet();
    });
    return true;
  }

  /**
   * Takes an idle unproven connection out of the line (null: none): one of the address holding the
   * most open connections on this port, the least recently active of that address's. So strangers
   * that fill the port from a few addresses give way to each other, and a probe or a backend that
   * holds one connection — even one just opened, before its first request — is taken only when every
   * address holds as few. O(log n) in the connections open ({@link GiveWayLine}).
   */
  private @Nullable Channel evictable() {
    synchronized (conns) {
      Channel victim = line.takeFromBusiest();
      if (victim != null) {
        conns.remove(victim);
      }
      return victim;
    }
  }

  /**
   * {@code channel}'s state changes under the lock, and with it whether it may give way: {@code
   * change} runs on its {@link Conn}, and the line follows (unless the connection gave way or closed).
   */
  private void update(Channel channel, Conn c, Consumer<Conn> change) {
    synchronized (conns) {
      if (conns.get(channel) != c) {
        change.accept(c);
        return;
      }
      if (c.mayGiveWay()) {
        line.mayNotGiveWay(c.address, c.lastActive);
      }
      change.accept(c);
      if (c.mayGiveWay()) {
        line.mayGiveWay(c.address, c.lastActive, channel);
      }
    }
  }

  /**
   * {@code channel} read a request ({@code read}: it goes to the back of the line of connections that
   * may give way) or answered one; {@code answering} are now unanswered.
   */
  private void answering(Channel channel, int answering, boolean read) {
    Conn c = channel.attr(CONN).get();
    if (c != null) {
      update(channel, c, conn -> {
        conn.answering = answering;
        if (read) {
          conn.lastActive = ++activity;
        }
      });
    }
  }

  /**
   * {@code channel} served a request with a valid credential (a service token on the API port, the
   * admin token for {@code /metrics}): no newcomer takes its place.
   */
  public static void proven(Channel channel) {
    Conn c = channel.attr(CONN).get();
    if (c != null && !c.proven) {
      c.budget.update(channel, c, conn -> conn.proven = true);
    }
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
    /** Requests read and not yet answered in full (mirrored in the connection's {@link Conn}). */
    private int answering;

    private void answering(ChannelHandlerContext ctx, int n, boolean read) {
      answering = n;
      HttpBudget.this.answering(ctx.channel(), n, read);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      arm(ctx);
    }

    private void arm(ChannelHandlerContext ctx) {
      cancel();
      timer = time.schedule(ctx.executor(), () -> {
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
        answering(ctx, answering + 1, true);
        cancel(); // the clock runs again once this request is answered
      }
      ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      if (msg instanceof LastHttpContent && answering > 0) {
        answering(ctx, answering - 1, false);
        if (answering == 0) {
          arm(ctx); // the next request on this connection gets a deadline of its own
        }
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
