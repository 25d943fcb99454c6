package io.playline.gateway.ws;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler.HandshakeComplete;
import io.playline.gateway.session.DecodedFrame;
import io.playline.node.edge.ConnectionLimiter;
import io.playline.proto.v1.Error.Code;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The admission step: counted under the caps from the upgrade until closed, or refused through the session. */
class ConnectionAdmissionTest {
  static final HandshakeComplete UPGRADED = new HandshakeComplete("/v1/stream", EmptyHttpHeaders.INSTANCE, null);

  private final ConnectionLimiter limiter = new ConnectionLimiter(1, 1, 1);

  /** What the steps after admission see, in order: events and reads. */
  private static final class Seen extends ChannelInboundHandlerAdapter {
    final List<Object> seen = new ArrayList<>();

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      seen.add(evt);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      seen.add(msg);
    }
  }

  @Test
  void anUpgradedConnectionIsCountedUntilItCloses() {
    ConnectionAdmission admission = new ConnectionAdmission(limiter);
    Seen next = new Seen();
    EmbeddedChannel channel = new EmbeddedChannel(admission, next);
    assertThat(admission.admitted()).as("not before the upgrade").isFalse();
    channel.pipeline().fireUserEventTriggered(UPGRADED);
    assertThat(next.seen).as("the session step starts the session").containsExactly(UPGRADED);
    assertThat(admission.admitted()).isTrue();
    assertThat(limiter.connections()).isEqualTo(1);
    channel.close();
    assertThat(limiter.connections()).isZero();
    assertThat(admission.admitted()).isFalse();
  }

  @Test
  void aConnectionOverTheCapsIsRefusedThroughItsSessionAndNotCounted() {
    EmbeddedChannel first = new EmbeddedChannel(new ConnectionAdmission(limiter));
    first.pipeline().fireUserEventTriggered(UPGRADED);
    ConnectionAdmission admission = new ConnectionAdmission(limiter);
    Seen next = new Seen();
    EmbeddedChannel second = new EmbeddedChannel(admission, next);
    second.pipeline().fireUserEventTriggered(UPGRADED);
    assertThat(next.seen).containsExactly(UPGRADED,
        new DecodedFrame.Bad(Code.TOO_MANY_CONNECTIONS, "more than 1 connections on this node", false));
    assertThat(admission.admitted()).as("no close grace").isFalse();
    second.close();
    assertThat(limiter.connections()).as("the first one's").isEqualTo(1);
    first.close();
    assertThat(limiter.connections()).isZero();
  }

  @Test
  void aConnectionClosedBeforeItsUpgradeReleasesNothing() {
    EmbeddedChannel first = new EmbeddedChannel(new ConnectionAdmission(limiter));
    first.pipeline().fireUserEventTriggered(UPGRADED);
    new EmbeddedChannel(new ConnectionAdmission(limiter)).close();
    assertThat(limiter.connections()).isEqualTo(1);
    first.close();
  }
}
