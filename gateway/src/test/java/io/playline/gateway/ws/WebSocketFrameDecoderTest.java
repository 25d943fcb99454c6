package io.playline.gateway.ws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.playline.gateway.heartbeat.EventWait;
import io.playline.gateway.session.DecodedFrame;
import io.playline.gateway.session.FrameDecoder;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.Error.Code;
import io.playline.testing.Frames;
import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The WebSocket decode step: each message, or framing failure, as one typed result. */
class WebSocketFrameDecoderTest {
  private static final int MAX_FRAME_BYTES = 100;
  private final EmbeddedChannel channel = new EmbeddedChannel(
      new WebSocketFrameDecoder(new FrameDecoder(new EventWait(() -> 0)), MAX_FRAME_BYTES));

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  private Object decoded() {
    return channel.readInbound();
  }

  @Test
  void aBinaryMessageIsOneClientFrame() {
    ClientFrame auth = Frames.auth(1, "token");
    BinaryWebSocketFrame frame = new BinaryWebSocketFrame(Unpooled.wrappedBuffer(auth.toByteArray()));
    channel.writeInbound(frame);
    assertThat(decoded()).isEqualTo(new DecodedFrame.Frame(auth));
    assertThat(frame.refCnt()).as("released").isZero();
  }

  @Test
  void aTextMessageIsUnsupported() {
    TextWebSocketFrame text = new TextWebSocketFrame("hello");
    channel.writeInbound(text);
    assertThat(decoded()).isEqualTo(new DecodedFrame.Bad(Code.UNSUPPORTED_FRAME,
        "only binary frames carrying a protobuf ClientFrame are accepted", false));
    assertThat(text.refCnt()).isZero();
  }

  @Test
  void bytesThatAreNoClientFrameAreAbuse() {
    channel.writeInbound(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(new byte[] {0x1a, 0x7f, 0x0a})));
    assertThat(decoded()).isEqualTo(new DecodedFrame.Bad(Code.PROTOCOL_VIOLATION,
        "malformed frame: not a protobuf ClientFrame", true));
  }

  @Test
  void oversizedMessagesAreTooLargeAndBrokenFramingIsAbuse() {
    DecodedFrame.Bad tooLarge = new DecodedFrame.Bad(Code.FRAME_TOO_LARGE, "frame larger than 100 bytes", false);
    channel.writeInbound(new ControlFrameInterceptor.BadFraming(new TooLongFrameException("from the decoder")));
    assertThat(decoded()).isEqualTo(tooLarge);
    channel.pipeline().fireExceptionCaught(new TooLongFrameException("from the aggregator"));
    assertThat(decoded()).isEqualTo(tooLarge);
    channel.pipeline().fireExceptionCaught(new CorruptedWebSocketFrameException(WebSocketCloseStatus.MESSAGE_TOO_BIG,
        "over the payload limit"));
    assertThat(decoded()).isEqualTo(tooLarge);
    channel.writeInbound(new ControlFrameInterceptor.BadFraming(new CorruptedFrameException("bad opcode")));
    assertThat(decoded()).isEqualTo(new DecodedFrame.Bad(Code.PROTOCOL_VIOLATION, "invalid WebSocket framing", true));
    channel.checkException();
  }

  @Test
  void otherFailuresAndMessagesPassOn() {
    channel.pipeline().fireExceptionCaught(new IOException("connection reset"));
    assertThatThrownBy(channel::checkException).isInstanceOf(IOException.class);
    channel.writeInbound("not a frame");
    assertThat(decoded()).isEqualTo("not a frame");
  }
}
