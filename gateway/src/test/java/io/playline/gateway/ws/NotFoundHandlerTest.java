package io.playline.gateway.ws;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The step after the upgrade handler: a plain HTTP request (anything but the upgrade on {@code
 * /v1/stream}) is answered 404 and the connection closed, the request released; WebSocket frames
 * go past it untouched.
 */
class NotFoundHandlerTest {
  private final EmbeddedChannel channel = new EmbeddedChannel(new NotFoundHandler());

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  @Test
  void aPlainHttpRequestIsAnswered404AndTheConnectionClosed() {
    FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/",
        Unpooled.copiedBuffer("ignored", StandardCharsets.UTF_8));
    channel.writeInbound(request);
    assertThat(request.refCnt()).as("released").isZero();
    Object passed = channel.readInbound();
    assertThat(passed).as("not passed on").isNull();
    FullHttpResponse response = channel.readOutbound();
    try {
      assertThat(response.status()).isEqualTo(HttpResponseStatus.NOT_FOUND);
      assertThat(response.headers().get(HttpHeaderNames.CONTENT_TYPE)).isEqualTo("text/plain; charset=utf-8");
      String body = response.content().toString(StandardCharsets.UTF_8);
      assertThat(body).contains("/v1/stream");
      assertThat(response.headers().getInt(HttpHeaderNames.CONTENT_LENGTH))
          .isEqualTo(body.getBytes(StandardCharsets.UTF_8).length);
    } finally {
      response.release();
    }
    assertThat(channel.isOpen()).as("closed once the answer is written").isFalse();
  }

  @Test
  void aWebSocketFrameGoesPastUntouched() {
    BinaryWebSocketFrame frame = new BinaryWebSocketFrame(Unpooled.wrappedBuffer(new byte[] {8, 1}));
    channel.writeInbound(frame);
    BinaryWebSocketFrame passed = channel.readInbound();
    try {
      assertThat(passed).isSameAs(frame);
      ByteBuf content = passed.content();
      assertThat(content.refCnt()).isEqualTo(1);
    } finally {
      passed.release();
    }
    Object answer = channel.readOutbound();
    assertThat(answer).as("no answer").isNull();
    assertThat(channel.isOpen()).isTrue();
  }

  @Test
  void leavesThePipelineOnceTheUpgradeCompleted() {
    channel.pipeline().fireUserEventTriggered(ConnectionAdmissionTest.UPGRADED);
    assertThat(channel.pipeline().get(NotFoundHandler.class)).as("no step per frame after the upgrade").isNull();
    FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/");
    channel.writeInbound(request);
    FullHttpRequest passed = channel.readInbound();
    assertThat(passed).as("nothing left to answer it").isSameAs(request);
    passed.release();
  }
}
