package io.playline.gateway.ws;

import io.micrometer.core.instrument.Counter;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.ssl.SslContext;
import io.playline.gateway.config.GatewayConfig;
import io.playline.gateway.heartbeat.EventWait;
import io.playline.gateway.session.DecodedFrame;
import io.playline.gateway.session.FrameDecoder;
import io.playline.gateway.session.SessionParts;
import io.playline.gateway.session.StreamSession;
import io.playline.node.edge.AddressBudgets;
import io.playline.node.edge.AdmitOnFirstRead;
import io.playline.node.edge.ConnectionLimiter;
import io.playline.node.edge.ProxyProtocolHandler;
import io.playline.node.edge.UnprovenHold;
import java.net.InetSocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * The pipeline of one WebSocket connection, one handler per step: admission at accept (the
 * address's new-connection budget, abuse penalty and cap of unproven connections, {@link
 * AddressBudgets}: a refused connection is closed before TLS or HTTP, for the PROXY header's
 * address when there is one), HTTP upgrade on {@code /v1/stream} (within {@code handshake.timeout}
 * of connecting, {@link UpgradeDeadline}), WebSocket framing with the configured payload limit
 * (violations become messages, {@link ControlFrameInterceptor}, answered with an Error and a
 * 4000-range close code instead of Netty's default close; any text is refused, so its UTF-8 is
 * never validated), fragment aggregation; other HTTP requests get the demo page's files ({@link
 * DemoHandler}, when on) or 404 (both steps leave the pipeline at the upgrade). Then, once upgraded:
 *
 * <ol>
 *   <li>{@link ConnectionAdmission}: the node's connection caps;
 *   <li>{@link PingBudget}: pings and pongs (which never reach Netty's protocol handler), refused
 *       before authentication, rate-limited and answered within the unsent-bytes budget;
 *   <li>{@link WebSocketFrameDecoder}: each message as a typed {@link DecodedFrame};
 *   <li>{@link WebSocketSessionHandler}: the connection's {@link StreamSession};
 *   <li>{@link WebSocketStreamTransport}: writes within the unsent-bytes budget, the close and half-close.
 * </ol>
 */
public final class WebSocketChannelInitializer extends ChannelInitializer<Channel> {
  private static final int MAX_UPGRADE_REQUEST_BYTES = 8 * 1024;

  private final SessionParts parts;
  private final @Nullable SslContext tls;
  private final ConnectionLimiter limiter;
  private final AddressBudgets addresses;
  private final WebSocketServerProtocolConfig protocolConfig;
  private final @Nullable DemoPage demo;
  private final Counter proxyRefused;

  /** With {@code demo} (null: off) the pipeline also serves the demo web player's files. */
  public WebSocketChannelInitializer(SessionParts parts, ConnectionLimiter limiter, AddressBudgets addresses,
      @Nullable SslContext tls, @Nullable DemoPage demo) {
    this.parts = parts;
    this.limiter = limiter;
    this.addresses = addresses;
    this.tls = tls;
    this.demo = demo;
    GatewayConfig config = parts.config();
    this.proxyRefused = ProxyProtocolHandler.refusedCounter(parts.metrics().registry(), "ws");
    this.protocolConfig = WebSocketServerProtocolConfig.newBuilder()
        .websocketPath(GatewayConfig.WS_PATH)
        .handshakeTimeoutMillis(config.authTimeout().toMillis())
        .handleCloseFrames(true)
        // No close frame of Netty's own on close(): every close frame is the frame handler's, after
        // its Error frame. Netty's would wait for a client that stopped reading (slow consumer)
        // instead of closing.
        .sendCloseFrame(null)
        .dropPongFrames(true)
        .decoderConfig(WebSocketDecoderConfig.newBuilder()
            .maxFramePayloadLength(config.maxFrameBytes())
            .allowExtensions(false)
            .closeOnProtocolViolation(false)
            // Every text message is refused whole (UNSUPPORTED_FRAME): validating its UTF-8 first
            // would only add a step to every frame's way through the pipeline.
            .withUTF8Validator(false)
            .build())
        .build();
  }

  @Override
  protected void initChannel(Channel ch) {
    if (parts.config().proxyProtocol()) {
      if (!ProxyProtocolHandler.admits(ch, parts.config().proxyTrusted(), proxyRefused)) {
        return;
      }
      ProxyProtocolHandler.install(ch); // in front of TLS: the balancer's header comes first
      ch.pipeline().addLast(new AdmitOnFirstRead(() -> admit(ch)));
    } else if (!admit(ch)) {
      return;
    }
    if (tls != null) {
      // A new engine per connection from the current context: a reloaded certificate serves the
      // next handshake, open connections keep theirs.
      ch.pipeline().addLast(tls.newHandler(ch.alloc()));
    }
    ch.pipeline()
        .addLast(new HttpServerCodec())
        .addLast(new HttpObjectAggregator(MAX_UPGRADE_REQUEST_BYTES))
        .addLast(new ControlFrameInterceptor()) // before Netty's protocol handler, which would answer pings itself
        .addLast(new WebSocketServerProtocolHandler(protocolConfig))
        .addLast(new UpgradeDeadline(parts.config().handshakeTimeout(), parts.time(), parts.metrics()::handshakeTimeout))
        .addLast(new WebSocketFrameAggregator(parts.config().maxFrameBytes()));
    if (demo != null) {
      ch.pipeline().addLast(new DemoHandler(demo));
    }
    GatewayConfig config = parts.config();
    EventWait wait = parts.eventWait();
    ConnectionAdmission admission = new ConnectionAdmission(limiter);
    WebSocketStreamTransport transport = new WebSocketStreamTransport(config.maxUnsentBytes(), parts.metrics(),
        parts.time(), admission::admitted);
    WebSocketSessionHandler session = new WebSocketSessionHandler(t -> new StreamSession(t, parts, wait),
        transport, addresses);
    ch.pipeline()
        .addLast(new NotFoundHandler())
        .addLast(admission)
        .addLast(new PingBudget(session::phase, transport, parts.metrics(), parts.time(),
            config.maxPingsPerSecond()))
        .addLast(new WebSocketFrameDecoder(new FrameDecoder(wait), config.maxFrameBytes()))
        .addLast(session)
        .addLast(transport);
  }

  /**
   * Takes a new connection from the client address's budget and counts it unproven until its upgrade
   * ({@link UnprovenHold}), or closes the channel; false when refused.
   */
  private boolean admit(Channel ch) {
    InetSocketAddress client = ProxyProtocolHandler.clientAddress(ch);
    if (client == null || client.getAddress() == null
        || UnprovenHold.admit(ch, addresses, client.getAddress(), AddressBudgets.Transport.WS,
            parts.time()) == null) {
      return true;
    }
    ch.close();
    return false;
  }
}
