package io.playline.gateway.ws;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.InvalidProtocolBufferException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.playline.core.write.WriteOutcome;
import io.playline.gateway.session.GatewayMetrics;
import io.playline.gateway.stream.AckEncoding;
import io.playline.node.errors.Errors;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.ManualTime;
import java.nio.channels.ClosedChannelException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The close step: frames out within the unsent-bytes budget, the last error and the close frame. */
class WebSocketStreamTransportTest {
  private static final int MAX_UNSENT = 1_000;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ManualTime time = new ManualTime();
  private final WebSocketStreamTransport transport = new WebSocketStreamTransport(MAX_UNSENT,
      new GatewayMetrics(registry), time, () -> true);
  private EmbeddedChannel channel = new EmbeddedChannel();
  private boolean sessionEnded;

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  private Object outbound() {
    return channel.readOutbound();
  }

  private static ServerFrame ack(long seq) {
    return ServerFrame.newBuilder().setSeq(seq).setHeartbeatAck(io.playline.proto.v1.HeartbeatAck.newBuilder()
        .setFlagDate("2026-12-05")).build();
  }

  private ServerFrame readFrame() throws InvalidProtocolBufferException {
    return readFrame(channel);
  }

  /**
   * The next frame {@code channel} wrote, as the {@code ServerFrame} it carries: whole frame bytes
   * ({@link BinaryFrames}) read back by the WebSocket decoder a client runs, which must find exactly
   * one binary frame in them.
   */
  static ServerFrame readFrame(EmbeddedChannel channel) throws InvalidProtocolBufferException {
    ByteBuf bytes = channel.readOutbound();
    return ServerFrame.parseFrom(BinaryFramesTest.payloadOf(bytes));
  }

  @Test
  void eachServerFrameGoesOutAsOneBinaryFrame() throws Exception {
    channel = new EmbeddedChannel(transport);
    transport.send(ack(3));
    assertThat(readFrame()).isEqualTo(ack(3));
    assertThat(outbound()).isNull();
  }

  @Test
  void anAckIsTheFrameItsMessageWouldBe() throws Exception {
    channel = new EmbeddedChannel(transport);
    WriteOutcome outcome = new WriteOutcome(false, new byte[] {WriteOutcome.CREATED, WriteOutcome.LOST});
    transport.sendAck(7, "2026-12-07", true, outcome);
    transport.sendAck(8, "", false, null);
    assertThat(readFrame()).isEqualTo(AckEncoding.frame(7, "2026-12-07", true, outcome));
    assertThat(readFrame()).isEqualTo(AckEncoding.frame(8, "", false, null));
    assertThat(outbound()).isNull();
  }

  @Test
  void noAckIsWrittenOnceClosing() {
    HeldWrites socket = new HeldWrites();
    channel = new EmbeddedChannel(socket, transport);
    channel.pipeline().addFirst(WebSocketStreamTransport.WS_DECODER, new ChannelInboundHandlerAdapter());
    transport.closeWithError(1, Errors.of(Code.DRAINING, "bye"));
    transport.sendAck(2, "2026-12-07", false, null);
    assertThat(socket.written).as("the error and the close frame, no ack after them").hasSize(2);
    socket.complete();
    socket.release();
  }

  @Test
  void closingSendsTheErrorThenItsCloseCodeAndEndsTheSessionAtOnce() throws Exception {
    HeldWrites socket = new HeldWrites();
    channel = new EmbeddedChannel(socket, transport);
    channel.pipeline().addFirst(WebSocketStreamTransport.WS_DECODER, new ChannelInboundHandlerAdapter());
    transport.endsSessionWith(() -> sessionEnded = true);
    transport.closeWithError(4, Errors.of(Code.RATE_LIMITED, "slow down"));

    assertThat(sessionEnded).as("the session ends before the frames are out").isTrue();
    assertThat(transport.closing()).isTrue();
    assertThat(channel.pipeline().get(WebSocketStreamTransport.WS_DECODER)).as("input is dropped undecoded").isNull();
    assertThat(channel.pipeline().get("wsdrop")).isNotNull();
    transport.send(ack(5));
    transport.closeWithError(6, Errors.of(Code.INTERNAL, "again"));
    assertThat(socket.written).as("the error, then the close frame, and nothing after").hasSize(2);
    assertThat(ServerFrame.parseFrom(BinaryFramesTest.payloadOf((ByteBuf) socket.written.get(0))))
        .isEqualTo(Errors.frame(4, Errors.of(Code.RATE_LIMITED, "slow down")));
    CloseWebSocketFrame close = (CloseWebSocketFrame) socket.written.get(1);
    assertThat(close.statusCode()).isEqualTo(4000 + Code.RATE_LIMITED.getNumber());
    assertThat(close.reasonText()).isEqualTo("slow down");
    assertThat(channel.isOpen()).as("open until its frames are out").isTrue();

    socket.complete();
    assertThat(channel.isOpen()).as("then (on an embedded channel, which cannot half-close) closed").isFalse();
    socket.release();
  }

  @Test
  void framesPastTheUnsentBudgetCloseTheConnection() {
    // Holds every flush, as a socket whose peer stopped reading holds its bytes.
    channel = new EmbeddedChannel(new ChannelOutboundHandlerAdapter() {
      @Override
      public void flush(ChannelHandlerContext ctx) {
      }
    }, transport, new ChannelInboundHandlerAdapter() {
      @Override
      public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!(cause instanceof ClosedChannelException)) { // the held frames, failed by the close
          ctx.fireExceptionCaught(cause);
        }
      }
    });
    int sent = 0;
    while (channel.isOpen() && sent <= MAX_UNSENT) {
      transport.send(ack(++sent));
    }
    assertThat(sent).as("closed once past the budget, not before")
        .isBetween(2, MAX_UNSENT / ack(1).getSerializedSize() + 1);
    assertThat(transport.closing()).isTrue();
    assertThat(registry.get("playline.errors").tag("code", "SLOW_CONSUMER").counter().count()).isEqualTo(1);
  }
}
