package io.playline.gateway.ws;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler.HandshakeComplete;
import io.playline.gateway.session.DecodedFrame;
import io.playline.gateway.session.StreamSession;
import io.playline.gateway.stream.StreamTransport;
import io.playline.node.edge.AddressBudgets;
import io.playline.node.edge.Probation;
import io.playline.node.edge.ProxyProtocolHandler;
import io.playline.proto.v1.Error.Code;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session step of a WebSocket connection: starts its {@link StreamSession} once the upgrade
 * completed, hands it every {@link DecodedFrame} the steps in front of it made, and ends it when the
 * channel closes. A refusal that is abuse (a ping flood, invalid framing, a malformed frame) closes
 * this connection, and only this one, and is counted ({@link AddressBudgets#abused}): a strike on
 * the address only when no player authenticated on the connection (a player's address is shared
 * with honest neighbours). Nothing reaches the session once the connection is closing. A peer that
 * went away is closed quietly; any other failure is answered {@code INTERNAL}. Confined to the
 * channel's event loop.
 */
final class WebSocketSessionHandler extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(WebSocketSessionHandler.class);

  private final Function<StreamTransport, StreamSession> sessions;
  private final WebSocketStreamTransport transport;
  private final AddressBudgets addresses;
  private @Nullable StreamSession session;

  /** @param sessions makes the connection's session on its transport */
  WebSocketSessionHandler(Function<StreamTransport, StreamSession> sessions, WebSocketStreamTransport transport,
      AddressBudgets addresses) {
    this.sessions = sessions;
    this.transport = transport;
    this.addresses = addresses;
  }

  /** Where the connection's session stands, for the steps in front of this one. */
  SessionPhase phase() {
    StreamSession s = session;
    if (s == null || transport.closing()) {
      return SessionPhase.NONE;
    }
    if (s.identity() != null) {
      return SessionPhase.OPEN;
    }
    return s.authenticating() ? SessionPhase.AUTHENTICATING : SessionPhase.AWAITING_AUTH;
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof HandshakeComplete) {
      StreamSession s = sessions.apply(transport);
      session = s;
      transport.endsSessionWith(s::onTransportClosed);
      s.start();
      return;
    }
    super.userEventTriggered(ctx, evt);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (!(msg instanceof DecodedFrame decoded)) {
      super.channelRead(ctx, msg);
      return;
    }
    StreamSession s = session;
    if (s == null) {
      if (decoded instanceof DecodedFrame.Bad) {
        ctx.close(); // nothing to answer before the upgrade
      }
      return;
    }
    if (transport.closing()) {
      return; // draining: the client's frames no longer matter
    }
    if (decoded instanceof DecodedFrame.Bad bad && bad.abuse()) {
      penalize(ctx);
    }
    s.onFrame(decoded);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    StreamSession s = session;
    if (s != null) {
      s.onTransportClosed();
    }
    super.channelInactive(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    StreamSession s = session;
    if (cause instanceof IOException || cause instanceof PrematureChannelClosureException) {
      // The peer went away, possibly in the middle of a fragmented message: nothing to answer.
      log.debug("Connection {} failed: {}", transport.remoteAddress(), cause.toString());
      ctx.close();
    } else {
      log.warn("Unexpected failure on {}", transport.remoteAddress(), cause);
      if (s != null) {
        s.onBadFrame(Code.INTERNAL, "internal error");
      } else {
        ctx.close();
      }
    }
  }

  /** The client abused the connection (the session closes it): counted, a strike on its address when no player's. */
  private void penalize(ChannelHandlerContext ctx) {
    InetSocketAddress client = ProxyProtocolHandler.clientAddress(ctx.channel());
    if (client != null && client.getAddress() != null) {
      addresses.abused(client.getAddress(), AddressBudgets.Transport.WS, Probation.isPlayer(ctx.channel()));
    }
  }
}
