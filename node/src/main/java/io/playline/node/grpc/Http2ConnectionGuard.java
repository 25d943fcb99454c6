package io.playline.node.grpc;

import io.grpc.Attributes;
import io.grpc.Grpc;
import io.grpc.ServerTransportFilter;
import io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.InternalProtocolNegotiator;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameListenerDecorator;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.AttributeKey;
import io.playline.node.edge.AddressBudgets;
import io.playline.node.edge.ConnectionLimiter;
import io.playline.node.edge.Deadlines;
import io.playline.node.edge.AdmitOnFirstRead;
import io.playline.node.edge.Probation;
import io.playline.node.edge.ProxyProtocolHandler;
import io.playline.node.edge.UnprovenHold;
import io.playline.time.Time;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ScheduledFuture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one HTTP/2 connection of a gRPC server may spend before and below its calls: it must open a
 * stream within {@code grpc.first.stream.timeout} of connecting (else it is closed: a socket that
 * only finished the handshake holds a descriptor for nothing); the TCP connection itself is
 * counted against caps per node and per address (the player port: {@code connection.max} and {@code
 * connection.max.per.address}, a separate count from the player streams; the API port: {@code
 * api.max.connections} and {@code api.max.connections.per.address}), and, on the player port, its
 * address's new-connection budget is taken and the connection counts among its unproven ones until
 * its first stream ({@link AddressBudgets}, {@link UnprovenHold}): over any it is closed right
 * after accept, before any HTTP/2; there its resets of streams not yet answered are counted on its
 * address ({@code grpc.max.early.resets.per.address}: a rapid reset spread over many connections of one
 * address). GOAWAYs with {@code ENHANCE_YOUR_CALM} that gRPC sends (rapid reset, ping flood) are
 * counted and, like a {@code PROTOCOL_ERROR}, are a strike on the address unless a player
 * authenticated on the connection ({@link AddressBudgets#abused}); each call is given its
 * connection's channel ({@link #CHANNEL}) so that a stream's authentication can say so ({@link
 * Probation}). Built on gRPC's
 * protocol-negotiator hook, in front of the given negotiation (and behind a PROXY header, whose
 * address is the one counted). Thread-safe; each connection's part runs on its event loop.
 */
public final class Http2ConnectionGuard {
  private static final Logger log = LoggerFactory.getLogger(Http2ConnectionGuard.class);
  /** The GOAWAY's debug data when an address's early resets went over its budget. */
  static final String EARLY_RESETS = "too_many_early_rststreams_from_address";
  /** A call's HTTP/2 connection, for {@link io.playline.node.edge.Probation}: set by {@link #channelFilter()}. */
  public static final Attributes.Key<Channel> CHANNEL = Attributes.Key.create("playline.connection");

  /** Each open connection by its socket's remote address (the balancer's, behind PROXY), for {@link #CHANNEL}. */
  private final ConcurrentMap<SocketAddress, Channel> open = new ConcurrentHashMap<>();

  private final Duration firstStreamTimeout;
  private final @Nullable ConnectionLimiter connections;
  private final @Nullable AddressBudgets addresses;
  private final boolean addressFromProxyHeader;
  private final GrpcEdgeMetrics metrics;
  private final Time time;
  /** With {@code connections}: the connections not yet {@link #proven}, which give way to newcomers. */
  private final @Nullable StrangersGiveWay strangers;
  /** A counted connection's place in {@code connections}: given back once, on close or when it gives way. */
  private static final AttributeKey<AtomicBoolean> COUNTED = AttributeKey.valueOf(Http2ConnectionGuard.class, "counted");

  /**
   * {@code connections}: the TCP connections' caps (null: not counted); {@code addresses}: the
   * per-address new-connection budgets and penalties (null: none); with {@code
   * addressFromProxyHeader} a connection is counted once its PROXY header named its address; with
   * {@code strangersGiveWay} a connection over {@code connections}' caps takes the place of one on
   * which no call proved a credential ({@link #proven}; {@link StrangersGiveWay}). Its deadlines pass
   * by {@code time}.
   */
  public Http2ConnectionGuard(Duration firstStreamTimeout, @Nullable ConnectionLimiter connections,
      @Nullable AddressBudgets addresses, boolean addressFromProxyHeader, boolean strangersGiveWay,
      GrpcEdgeMetrics metrics, Time time) {
    this.firstStreamTimeout = firstStreamTimeout;
    this.time = time;
    this.connections = connections;
    this.addresses = addresses;
    this.addressFromProxyHeader = addressFromProxyHeader;
    this.metrics = metrics;
    this.strangers = strangersGiveWay && connections != null ? new StrangersGiveWay() : null;
    if (connections != null) {
      metrics.countedBy(connections);
    }
  }

  /** {@code next}, with this guard in front of it on every connection. */
  public InternalProtocolNegotiator.ProtocolNegotiator wrap(InternalProtocolNegotiator.ProtocolNegotiator next) {
    // The placeholder stays, a no-op in front of gRPC's handler: closing through its context skips
    // gRPC's graceful shutdown (GOAWAY, then a PING the client may never answer for 10 s).
    return InFrontOfNegotiation.wrap(next, (front, grpcHandler) -> {
      Channel channel = front.channel();
      SocketAddress socket = channel.remoteAddress();
      if (socket != null) {
        open.put(socket, channel);
        channel.closeFuture().addListener(f -> open.remove(socket, channel));
      }
      watch(front, grpcHandler);
      if (connections != null || addresses != null) {
        if (addressFromProxyHeader) {
          front.pipeline().addAfter(front.name(), null, new AdmitOnFirstRead(() -> admit(front)));
        } else {
          admit(front);
        }
      }
    });
  }

  /**
   * The transport filter that gives each call its connection's channel ({@link #CHANNEL}); add it
   * before any filter that replaces the remote address (the PROXY protocol's).
   */
  public ServerTransportFilter channelFilter() {
    return new ServerTransportFilter() {
      @Override
      public Attributes transportReady(Attributes attributes) {
        SocketAddress socket = attributes.get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        Channel channel = socket == null ? null : open.get(socket);
        return channel == null ? attributes : attributes.toBuilder().set(CHANNEL, channel).build();
      }
    };
  }

  private void watch(ChannelHandlerContext front, GrpcHttp2ConnectionHandler grpcHandler) {
    Channel channel = front.channel();
    ScheduledFuture<?> deadline = time.schedule(channel.eventLoop(), () -> {
      if (channel.isActive()) {
        metrics.noStream();
        log.debug("Closing {}: no stream within grpc.first.stream.timeout {}", channel.remoteAddress(),
            firstStreamTimeout);
        front.close();
      }
    }, Deadlines.spreadNanos(firstStreamTimeout), TimeUnit.NANOSECONDS);
    channel.closeFuture().addListener(f -> deadline.cancel(false));
    AddressBudgets budgets = addresses;
    if (budgets != null) {
      countEarlyResets(channel, grpcHandler, budgets);
    }
    grpcHandler.connection().addListener(new Http2ConnectionAdapter() {
      @Override
      public void onStreamAdded(Http2Stream stream) {
        deadline.cancel(false);
        UnprovenHold.proven(channel);
      }

      @Override
      public void onGoAwaySent(int lastStreamId, long errorCode, ByteBuf debugData) {
        if (errorCode == Http2Error.ENHANCE_YOUR_CALM.code()) {
          metrics.calmDown(debugData.toString(StandardCharsets.US_ASCII));
          penalize(channel);
        } else if (errorCode == Http2Error.PROTOCOL_ERROR.code()) {
          penalize(channel);
        }
      }
    });
  }

  /**
   * Puts each {@code RST_STREAM} the client sends for a stream not yet answered (no response headers
   * sent: the rapid reset's HEADERS + RST_STREAM pairs; a player's own cancel after its {@code
   * AuthOk} is not one, nor any reset on a connection a player authenticated on, which its own
   * per-connection reset budget bounds) on its address's budget, in front of gRPC's own frame listener: over it, the
   * connection ends with {@code GOAWAY ENHANCE_YOUR_CALM}, which counts it and penalizes the address
   * (below). Netty only passes on resets of streams it still holds.
   */
  private static void countEarlyResets(Channel channel, GrpcHttp2ConnectionHandler grpcHandler,
      AddressBudgets budgets) {
    Http2Connection connection = grpcHandler.connection();
    Http2ConnectionDecoder decoder = grpcHandler.decoder();
    decoder.frameListener(new Http2FrameListenerDecorator(decoder.frameListener()) {
      @Override
      public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) throws Http2Exception {
        Http2Stream stream = connection.stream(streamId);
        if (stream != null && !stream.isHeadersSent()) {
          InetSocketAddress remote = ProxyProtocolHandler.clientAddress(channel);
          if (remote != null && remote.getAddress() != null && !Probation.isPlayer(channel)
              && !budgets.earlyReset(remote.getAddress())) {
            throw Http2Exception.connectionError(Http2Error.ENHANCE_YOUR_CALM, EARLY_RESETS);
          }
        }
        super.onRstStreamRead(ctx, streamId, errorCode);
      }
    });
  }

  /**
   * Counts the connection of {@code front} or closes it; false when it was refused. The port's and
   * the address's connection caps come first, so a connection they refuse takes nothing from the
   * address's new-connection budget nor any unproven connection's place.
   */
  private boolean admit(ChannelHandlerContext front) {
    Channel channel = front.channel();
    InetSocketAddress remote = ProxyProtocolHandler.clientAddress(channel);
    InetAddress address = remote == null ? null : remote.getAddress();
    ConnectionLimiter limiter = connections;
    if (limiter != null) {
      String refused = limiter.admit(address);
      StrangersGiveWay s = strangers;
      if (refused != null && s != null) {
        refused = giveWay(s, limiter, address, refused);
      }
      if (refused != null) {
        metrics.refused(refused.endsWith("on this node"));
        log.debug("Closing {}: {}", remote, refused);
        front.close();
        return false;
      }
      AtomicBoolean counted = new AtomicBoolean(true);
      channel.attr(COUNTED).set(counted);
      channel.closeFuture().addListener(f -> {
        if (counted.compareAndSet(true, false)) {
          limiter.release(address);
        }
      });
      if (s != null) {
        s.add(front, address);
      }
    }
    AddressBudgets.Refusal overBudget = addresses == null || address == null ? null
        : UnprovenHold.admit(channel, addresses, address, AddressBudgets.Transport.GRPC, time);
    if (overBudget != null) {
      log.debug("Closing {}: {} of its address", remote, overBudget);
      front.close();
      return false;
    }
    return true;
  }

  /**
   * Closes a stranger to make room for a newcomer from {@code address}, {@code refused} over a cap
   * (its address's or the node's), and admits the newcomer in its place: null when admitted, else why
   * not ({@code refused} when there is no stranger to take).
   */
  private @Nullable String giveWay(StrangersGiveWay s, ConnectionLimiter limiter, @Nullable InetAddress address,
      String refused) {
    StrangersGiveWay.Stranger victim = s.giveWay(address, !refused.endsWith("on this node"));
    if (victim == null) {
      return refused;
    }
    Channel gone = victim.front.channel();
    AtomicBoolean counted = gone.attr(COUNTED).get();
    if (counted != null && counted.compareAndSet(true, false)) {
      InetSocketAddress goneRemote = ProxyProtocolHandler.clientAddress(gone);
      limiter.release(goneRemote == null ? null : goneRemote.getAddress());
    }
    metrics.gaveWay();
    log.debug("Closing {}: no call on it proved a credential, and a new connection needs its place",
        gone.remoteAddress());
    victim.front.close();
    return limiter.admit(address);
  }

  /**
   * A call on {@code channel} (from the call's {@link #CHANNEL} attribute) carried a valid credential:
   * on a server whose strangers give way, this connection no longer does.
   */
  public static void proven(Channel channel) {
    StrangersGiveWay.proven(channel);
  }

  /** The connection was cut for abuse: counted, and a strike on its address unless a player authenticated on it. */
  private void penalize(Channel channel) {
    InetSocketAddress remote = ProxyProtocolHandler.clientAddress(channel);
    if (addresses != null && remote != null && remote.getAddress() != null) {
      addresses.abused(remote.getAddress(), AddressBudgets.Transport.GRPC, Probation.isPlayer(channel));
    }
  }
}
