package io.playline.gateway.ws;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.playline.core.config.ConfigSource;
import io.playline.gateway.session.DecodedFrame;
import io.playline.gateway.session.SessionFixture;
import io.playline.gateway.session.StreamSession;
import io.playline.node.edge.AddressBudgets;
import io.playline.node.edge.AddressLimitsConfig;
import io.playline.node.edge.ProxyProtocolHandler;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import java.io.IOException;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The session step on a real {@link StreamSession} without Redis ({@link SessionFixture}): what it
 * hands the session, what it charges to the connection's address, when it stops.
 */
class WebSocketSessionHandlerTest {
  private final SessionFixture fixture = new SessionFixture();
  private final AddressBudgets addresses = new AddressBudgets(AddressLimitsConfig.from(ConfigSource.empty()),
      fixture.registry, fixture.time);
  private final WebSocketStreamTransport transport = new WebSocketStreamTransport(1 << 20, fixture.metrics,
      fixture.time, () -> true);
  private final WebSocketSessionHandler handler = new WebSocketSessionHandler(
      t -> new StreamSession(t, fixture.parts, fixture.parts.eventWait()), transport, addresses);
  private final EmbeddedChannel channel = new EmbeddedChannel(handler, transport);

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  private void upgrade() {
    ProxyProtocolHandler.remember(channel, new InetSocketAddress("192.0.2.7", 40_000));
    channel.pipeline().fireUserEventTriggered(ConnectionAdmissionTest.UPGRADED);
  }

  private ServerFrame sent() throws Exception {
    return WebSocketStreamTransportTest.readFrame(channel);
  }

  private int closeCode() {
    CloseWebSocketFrame close = channel.readOutbound();
    try {
      return close.statusCode();
    } finally {
      close.release();
    }
  }

  private double cuts(String by) {
    return fixture.registry.get("playline.connections.abuse.cuts").tag("transport", "ws").tag("by", by).counter()
        .count();
  }

  private double open() {
    return fixture.registry.get("playline.connections.open").gauge().value();
  }

  @Test
  void theUpgradeStartsTheSessionAndFramesReachIt() throws Exception {
    assertThat(handler.phase()).isEqualTo(SessionPhase.NONE);
    upgrade();
    assertThat(handler.phase()).isEqualTo(SessionPhase.AWAITING_AUTH);
    assertThat(open()).isEqualTo(1);
    channel.writeInbound(new DecodedFrame.Frame(Frames.auth(1, fixture.token(5))));
    assertThat(sent().getAuthOk().getUid()).isEqualTo(5);
    assertThat(handler.phase()).isEqualTo(SessionPhase.OPEN);
    channel.close();
    assertThat(open()).as("closing the channel ends the session").isZero();
  }

  @Test
  void abuseClosesTheConnectionAndIsChargedToIt() throws Exception {
    upgrade();
    channel.writeInbound(new DecodedFrame.Bad(Code.PROTOCOL_VIOLATION, "invalid WebSocket framing", true));
    assertThat(cuts("stranger")).isEqualTo(1);
    assertThat(sent().getError().getCode()).isEqualTo(Code.PROTOCOL_VIOLATION);
    assertThat(closeCode()).isEqualTo(4000 + Code.PROTOCOL_VIOLATION.getNumber());
  }

  @Test
  void nothingReachesTheSessionOnceTheConnectionIsClosing() {
    HeldWrites socket = new HeldWrites();
    channel.pipeline().addFirst(socket);
    upgrade();
    channel.writeInbound(new DecodedFrame.Bad(Code.PROTOCOL_VIOLATION, "invalid WebSocket framing", true));
    assertThat(handler.phase()).isEqualTo(SessionPhase.NONE);
    assertThat(channel.isOpen()).as("its last frames are not out yet").isTrue();

    channel.writeInbound(new DecodedFrame.Bad(Code.PROTOCOL_VIOLATION, "again", true));
    channel.writeInbound(new DecodedFrame.Frame(Frames.auth(1, fixture.token(5))));
    assertThat(cuts("stranger")).as("nothing counts once closing").isEqualTo(1);
    assertThat(socket.written).as("the error and the close frame, nothing more").hasSize(2);
    socket.release();
  }

  @Test
  void aRefusalThatIsNotAbuseChargesNothing() throws Exception {
    upgrade();
    channel.writeInbound(new DecodedFrame.Bad(Code.FRAME_TOO_LARGE, "frame larger than 1 bytes", false));
    assertThat(cuts("stranger") + cuts("player")).isZero();
    assertThat(sent().getError().getCode()).isEqualTo(Code.FRAME_TOO_LARGE);
    assertThat(closeCode()).isEqualTo(4000 + Code.FRAME_TOO_LARGE.getNumber());
  }

  @Test
  void aPeerThatWentAwayIsClosedQuietlyAndAFailureIsInternal() throws Exception {
    upgrade();
    channel.pipeline().fireExceptionCaught(new IllegalStateException("a bug"));
    assertThat(sent().getError().getCode()).isEqualTo(Code.INTERNAL);

    WebSocketStreamTransport otherTransport = new WebSocketStreamTransport(1 << 20, fixture.metrics, fixture.time,
        () -> true);
    EmbeddedChannel other = new EmbeddedChannel(new WebSocketSessionHandler(
        t -> new StreamSession(t, fixture.parts, fixture.parts.eventWait()), otherTransport,
        addresses), otherTransport);
    other.pipeline().fireUserEventTriggered(ConnectionAdmissionTest.UPGRADED);
    other.pipeline().fireExceptionCaught(new IOException("connection reset"));
    assertThat(other.isOpen()).isFalse();
    Object answer = other.readOutbound();
    assertThat(answer).as("nothing to answer").isNull();
    other.finishAndReleaseAll();
  }
}
