package io.playline.gateway.ws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocket08FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocket08FrameEncoder;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A frame's bytes as the edge writes them: what Netty's server encoder writes, read back by a client's decoder. */
class BinaryFramesTest {
  /**
   * The payload of the one binary frame {@code frame} holds, read by the WebSocket decoder a client
   * runs (unmasked frames); {@code frame} is left to its owner.
   */
  static byte[] payloadOf(ByteBuf frame) {
    EmbeddedChannel client = new EmbeddedChannel(new WebSocket08FrameDecoder(false, false, 1 << 24));
    try {
      client.writeInbound(frame.retainedDuplicate());
      BinaryWebSocketFrame read = client.readInbound();
      assertThat(read).as("one binary frame").isNotNull();
      try {
        assertThat(read.isFinalFragment()).isTrue();
        assertThat(read.rsv()).isZero();
        assertThat(client.<Object>readInbound()).as("and nothing after it").isNull();
        return ByteBufUtil.getBytes(read.content());
      } finally {
        read.release();
      }
    } finally {
      client.finishAndReleaseAll();
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 125, 126, 127, 65_535, 65_536, 70_000})
  void theBytesAreNettysEncoderBytesForTheSamePayload(int length) {
    byte[] payload = new byte[length];
    new Random(length).nextBytes(payload);

    ByteBuf ours = BinaryFrames.allocate(UnpooledByteBufAllocator.DEFAULT, length);
    assertThat(ours.writableBytes()).as("room for exactly the payload").isEqualTo(length);
    assertThat(ours.maxWritableBytes()).isEqualTo(length);
    ours.writeBytes(payload);

    EmbeddedChannel netty = new EmbeddedChannel(new WebSocket08FrameEncoder(false));
    netty.writeOutbound(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(payload)));
    ByteBuf expected = Unpooled.buffer();
    for (ByteBuf part; (part = netty.readOutbound()) != null; part.release()) {
      expected.writeBytes(part);
    }
    try {
      assertThat(ByteBufUtil.getBytes(ours)).isEqualTo(ByteBufUtil.getBytes(expected));
      assertThat(payloadOf(ours)).isEqualTo(payload);
    } finally {
      ours.release();
      expected.release();
      netty.finishAndReleaseAll();
    }
  }

  @Test
  void aNegativeLengthIsRefused() {
    assertThatThrownBy(() -> BinaryFrames.allocate(UnpooledByteBufAllocator.DEFAULT, -1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
