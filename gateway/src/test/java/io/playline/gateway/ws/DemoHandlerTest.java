package io.playline.gateway.ws;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The demo page's files and token endpoint, served from the real built page (module demo). */
class DemoHandlerTest {
  private static final LongFunction<String> TOKENS = uid -> "token-for-" + uid;

  @Test
  void servesThePageItsStyleAndTheBuiltScriptWithAStrictPolicy() {
    DemoPage page = DemoPage.load(null);
    // The build made the bundle (Node is part of the build here); without it the page is inert.
    assertThat(page.scriptBuilt()).as("demo.js built by demo/build-web.sh").isTrue();

    FullHttpResponse html = get(page, "/demo/");
    assertThat(html.status().code()).isEqualTo(200);
    assertThat(html.headers().get(HttpHeaderNames.CONTENT_TYPE)).isEqualTo("text/html; charset=utf-8");
    assertThat(body(html)).contains("<script type=\"module\" src=\"demo.js\"></script>", "id=\"seek\"");
    assertThat(html.headers().get(HttpHeaderNames.CONTENT_SECURITY_POLICY))
        .isEqualTo(DemoHandler.CONTENT_SECURITY_POLICY).contains("connect-src 'self'", "frame-ancestors 'none'");
    assertThat(html.headers().get("X-Content-Type-Options")).isEqualTo("nosniff");

    FullHttpResponse css = get(page, "/demo/demo.css");
    assertThat(css.headers().get(HttpHeaderNames.CONTENT_TYPE)).startsWith("text/css");
    FullHttpResponse js = get(page, "/demo/demo.js");
    assertThat(js.status().code()).isEqualTo(200);
    assertThat(js.headers().get(HttpHeaderNames.CONTENT_TYPE)).startsWith("text/javascript");
    // The page's script with the SDK bundled in (booleans: a failure must not print 90 KB).
    String script = body(js);
    assertThat(script.contains("playline.demo.uid")).as("the demo's own code").isTrue();
    assertThat(script.contains("Playline listener failed")).as("the SDK's code").isTrue();
    assertThat(script.contains("import ") || script.contains("require(")).as("nothing left to load").isFalse();
  }

  @Test
  void leavesThePipelineOnceAWebSocketUpgradeCompleted() {
    EmbeddedChannel channel = new EmbeddedChannel(new DemoHandler(DemoPage.load(null)));
    channel.pipeline().fireUserEventTriggered(ConnectionAdmissionTest.UPGRADED);
    assertThat(channel.pipeline().get(DemoHandler.class)).as("no step per frame after the upgrade").isNull();
    channel.finishAndReleaseAll();
  }

  @Test
  void theBarePathRedirectsBelowItselfKeepingTheQuery() {
    FullHttpResponse r = get(DemoPage.load(null), "/demo?uid=7&device=tv");
    assertThat(r.status().code()).isEqualTo(301);
    assertThat(r.headers().get(HttpHeaderNames.LOCATION)).isEqualTo("/demo/?uid=7&device=tv");
  }

  @Test
  void tokensOnlyWhereTheNodeHandsThemOutAndOnlyForOnePositiveUid() {
    DemoPage withTokens = DemoPage.load(TOKENS);
    FullHttpResponse ok = get(withTokens, "/demo/token?uid=42");
    assertThat(ok.status().code()).isEqualTo(200);
    assertThat(body(ok)).isEqualTo("{\"token\":\"token-for-42\"}");
    assertThat(ok.headers().get(HttpHeaderNames.CACHE_CONTROL)).isEqualTo("no-store");

    for (String bad : new String[] {"", "?uid=0", "?uid=-3", "?uid=abc", "?uid=99999999999999999999", "?uid=1&uid=2",
        "?uid=9223372036854775808"}) {
      FullHttpResponse r = get(withTokens, "/demo/token" + bad);
      assertThat(r.status().code()).as(bad).isEqualTo(400);
      assertThat(body(r)).as(bad).contains("uid: one positive integer");
    }

    FullHttpResponse none = get(DemoPage.load(null), "/demo/token?uid=42");
    assertThat(none.status().code()).isEqualTo(404);
    assertThat(body(none)).contains("paste a player token");
  }

  @Test
  void otherMethodsFilesAndPathsAreRefusedOrPassedOn() {
    DemoPage page = DemoPage.load(TOKENS);
    FullHttpResponse post = request(page, HttpMethod.POST, "/demo/token?uid=1");
    assertThat(post.status().code()).isEqualTo(405);
    assertThat(post.headers().get(HttpHeaderNames.ALLOW)).isEqualTo("GET, HEAD");

    FullHttpResponse head = request(page, HttpMethod.HEAD, "/demo/");
    assertThat(head.status().code()).isEqualTo(200);
    assertThat(head.content().readableBytes()).isZero();
    assertThat(head.headers().getInt(HttpHeaderNames.CONTENT_LENGTH)).isPositive();

    assertThat(get(page, "/demo/../pom.xml").status().code()).isEqualTo(404);
    assertThat(get(page, "/demo/%zz").status().code()).isEqualTo(400);
    assertThat(get(page, "/demo/token?uid=%zz").status().code()).isEqualTo(400);
    assertThat(get(page, "/demo/app.ts").status().code()).isEqualTo(404);

    // Not the demo's: handed on untouched (to the 404 handler in the real pipeline).
    EmbeddedChannel channel = new EmbeddedChannel(new DemoHandler(page));
    for (String uri : new String[] {"/demonstration", "/%zz", "/v1/stream?x=%zz"}) {
      FullHttpRequest other = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri);
      channel.writeInbound(other);
      Object passed = channel.readInbound();
      Object answered = channel.readOutbound();
      assertThat(passed).as(uri).isSameAs(other);
      assertThat(answered).as(uri).isNull();
      other.release();
    }
  }

  @Test
  void everyAnswerClosesTheConnection() {
    EmbeddedChannel channel = new EmbeddedChannel(new DemoHandler(DemoPage.load(null)));
    channel.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/demo/"));
    FullHttpResponse r = channel.readOutbound();
    assertThat(r.headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close");
    r.release();
    assertThat(channel.isOpen()).isFalse();
  }

  private static FullHttpResponse get(DemoPage page, String uri) {
    return request(page, HttpMethod.GET, uri);
  }

  /** The answer, copied to the heap (the handler's buffer released). */
  private static FullHttpResponse request(DemoPage page, HttpMethod method, String uri) {
    EmbeddedChannel channel = new EmbeddedChannel(new DemoHandler(page));
    channel.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri));
    @Nullable FullHttpResponse r = channel.readOutbound();
    assertThat(r).as(method + " " + uri).isNotNull();
    assertThat(r.headers().getInt(HttpHeaderNames.CONTENT_LENGTH)).isNotNull();
    FullHttpResponse copy = r.replace(Unpooled.wrappedBuffer(ByteBufUtil.getBytes(r.content())));
    r.release();
    return copy;
  }

  private static String body(FullHttpResponse r) {
    return r.content().toString(StandardCharsets.UTF_8);
  }
}
