package io.playline.gateway.ws;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler.HandshakeComplete;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Serves {@link DemoPage} on the WebSocket port: {@code GET /demo/} (the page), its stylesheet and
 * script, and {@code GET /demo/token?uid=N} (a player token, where the node hands them out).
 * Anything else goes on to {@link NotFoundHandler}. Every answer closes the connection (the
 * upgrade deadline would anyway) and carries a strict Content-Security-Policy: the page's own
 * files, and WebSockets to this origin only. Leaves the pipeline once a WebSocket upgrade completed
 * (no request can follow it).
 */
final class DemoHandler extends ChannelInboundHandlerAdapter {
  /** Scripts, styles and connections from this origin only; never framed. */
  static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
      + "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  private final DemoPage page;

  DemoHandler(DemoPage page) {
    this.page = page;
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    super.userEventTriggered(ctx, evt);
    if (evt instanceof HandshakeComplete) {
      ctx.pipeline().remove(this);
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof FullHttpRequest request)) {
      ctx.fireChannelRead(msg);
      return;
    }
    // Decided on the raw URI: what is not the demo's goes on undecoded, as it did without the demo.
    String raw = request.uri();
    if (!raw.equals(DemoPage.PATH) && !raw.startsWith(DemoPage.PATH + "/") && !raw.startsWith(DemoPage.PATH + "?")) {
      ctx.fireChannelRead(msg);
      return;
    }
    try {
      boolean head = request.method().equals(HttpMethod.HEAD);
      QueryStringDecoder uri;
      String path;
      try {
        uri = new QueryStringDecoder(raw);
        path = uri.path();
        uri.parameters();
      } catch (IllegalArgumentException e) {
        send(ctx, text(HttpResponseStatus.BAD_REQUEST, "malformed URI\n"), head);
        return;
      }
      if (!head && !request.method().equals(HttpMethod.GET)) {
        FullHttpResponse r = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "GET or HEAD only\n");
        r.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
        send(ctx, r, head);
      } else if (!path.equals(DemoPage.PATH) && !path.startsWith(DemoPage.PATH + "/")) {
        send(ctx, text(HttpResponseStatus.NOT_FOUND, "no such file in the demo\n"), head);
      } else if (path.equals(DemoPage.PATH)) {
        // Relative URLs in the page resolve below /demo/.
        String query = uri.rawQuery();
        FullHttpResponse r = text(HttpResponseStatus.MOVED_PERMANENTLY, "see " + DemoPage.PATH + "/\n");
        r.headers().set(HttpHeaderNames.LOCATION, DemoPage.PATH + "/" + (query.isEmpty() ? "" : "?" + query));
        send(ctx, r, head);
      } else {
        send(ctx, answer(path.substring(DemoPage.PATH.length()), uri), head);
      }
    } finally {
      ReferenceCountUtil.release(request);
    }
  }

  private FullHttpResponse answer(String file, QueryStringDecoder uri) {
    if (file.equals("/token")) {
      return token(uri.parameters().get("uid"));
    }
    DemoPage.Asset asset = page.asset(file);
    if (asset == null) {
      return text(HttpResponseStatus.NOT_FOUND, "no such file in the demo: " + file + "\n");
    }
    FullHttpResponse r = response(HttpResponseStatus.OK, Unpooled.wrappedBuffer(asset.body()), asset.contentType());
    r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
    return r;
  }

  private FullHttpResponse token(List<String> uids) {
    long uid = uids == null || uids.size() != 1 ? 0 : parseUid(uids.get(0));
    if (uid <= 0) {
      return json(HttpResponseStatus.BAD_REQUEST, "{\"error\":\"uid: one positive integer, e.g. /demo/token?uid=42\"}");
    }
    String token = page.devToken(uid);
    if (token == null) {
      return json(HttpResponseStatus.NOT_FOUND,
          "{\"error\":\"this node hands out no demo tokens (standalone does): paste a player token\"}");
    }
    // A JWT is base64url and dots only: nothing to escape.
    FullHttpResponse r = json(HttpResponseStatus.OK, "{\"token\":\"" + token + "\"}");
    r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
    return r;
  }

  private static long parseUid(String text) {
    if (text.isEmpty() || text.length() > 19 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return 0;
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static FullHttpResponse text(HttpResponseStatus status, String body) {
    return response(status, Unpooled.copiedBuffer(body, StandardCharsets.UTF_8), "text/plain; charset=utf-8");
  }

  private static FullHttpResponse json(HttpResponseStatus status, String body) {
    return response(status, Unpooled.copiedBuffer(body, StandardCharsets.UTF_8), "application/json");
  }

  private static FullHttpResponse response(HttpResponseStatus status, ByteBuf body, String contentType) {
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
    r.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, contentType)
        .set(HttpHeaderNames.CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY)
        .set("X-Content-Type-Options", "nosniff")
        .set("Referrer-Policy", "no-referrer")
        .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    return r;
  }

  private static void send(ChannelHandlerContext ctx, FullHttpResponse response, boolean head) {
    response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
    if (head) {
      response.content().clear();
    }
    ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
  }
}
