package io.playline.gateway.ws;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.playline.gateway.session.GatewayMetrics;
import io.playline.gateway.session.DecodedFrame;
import io.playline.proto.v1.Error.Code;
import io.playline.testing.ManualTime;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The ping budget: what it answers, what it refuses (and how), what it passes on. */
class PingBudgetTest {
  private static final int MAX = 2;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final GatewayMetrics metrics = new GatewayMetrics(registry);
  private final ManualTime time = new ManualTime();
  private final WebSocketStreamTransport transport = new WebSocketStreamTransport(1 << 20, metrics, time, () -> true);
  private SessionPhase phase = SessionPhase.OPEN;
  private final EmbeddedChannel channel = new EmbeddedChannel(new PingBudget(() -> phase, transport, metrics, time, MAX),
      transport);

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  private Object outbound() {
    return channel.readOutbound();
  }

  private Object inbound() {
    return channel.readInbound();
  }

  private void ping(String payload) {
    channel.writeInbound(new ControlFrameInterceptor.ControlFrame(true, payload.getBytes(UTF_8)));
  }

  private void pong() {
    channel.writeInbound(new ControlFrameInterceptor.ControlFrame(false, new byte[0]));
  }

  private String pongPayload() {
    PongWebSocketFrame pong = channel.readOutbound();
    assertThat(pong).as("a pong").isNotNull();
    try {
      return new String(ByteBufUtil.getBytes(pong.content()), UTF_8);
    } finally {
      pong.release();
    }
  }

  private double refused(String reason) {
    return registry.get("playline.connections.control.refused").tag("reason", reason).counter().count();
  }

  @Test
  void aPingWithinTheBudgetIsAnsweredWithItsPayload() {
    ping("p1");
    assertThat(pongPayload()).isEqualTo("p1");
    pong();
    assertThat(outbound()).as("a client's pong is not answered").isNull();
    assertThat(inbound()).isNull();
  }

  @Test
  void pastTheBudgetTheConnectionIsRefusedAsAbuse() {
    ping("a");
    pong();
    assertThat(pongPayload()).isEqualTo("a");
    ping("over");
    assertThat(outbound()).isNull();
    assertThat(inbound()).isEqualTo(new DecodedFrame.Bad(Code.RATE_LIMITED,
        "more than 2 pings and pongs per second", true));
    assertThat(refused("rate")).isEqualTo(1);

    time.advance(Duration.ofSeconds(1));
    ping("next second");
    assertThat(pongPayload()).as("a new window").isEqualTo("next second");
  }

  @Test
  void beforeAuthenticationNoneIsAccepted() {
    phase = SessionPhase.AWAITING_AUTH;
    ping("x");
    assertThat(inbound()).isEqualTo(new DecodedFrame.Bad(Code.UNAUTHENTICATED,
        "only an auth frame is accepted before authentication (got a ping)", false));
    phase = SessionPhase.AUTHENTICATING;
    pong();
    assertThat(inbound()).isEqualTo(new DecodedFrame.Bad(Code.PROTOCOL_VIOLATION,
        "wait for auth_ok before sending a pong", false));
    assertThat(outbound()).as("no pong").isNull();
    assertThat(refused("before_auth")).isEqualTo(2);
  }

  @Test
  void aClosingConnectionsControlFramesAreDropped() {
    phase = SessionPhase.NONE;
    ping("x");
    assertThat(inbound()).isNull();
    assertThat(outbound()).isNull();
    assertThat(refused("before_auth") + refused("rate")).isZero();
  }

  @Test
  void otherMessagesPassOn() {
    channel.writeInbound("a frame");
    assertThat(inbound()).isEqualTo("a frame");
  }
}
