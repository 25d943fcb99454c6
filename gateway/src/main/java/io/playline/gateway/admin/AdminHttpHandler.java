package io.playline.gateway.admin;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@code /metrics} (Prometheus text format), {@code /healthz} (the process is alive) and
 * {@code /readyz} (every component is ready: 200, else 503 listing each). Stateless and
 * sharable; runs on the admin channel's event loop and never blocks.
 */
@Sharable
final class AdminHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
  private static final Logger log = LoggerFactory.getLogger(AdminHttpHandler.class);

  private final PrometheusMeterRegistry registry;
  private final Readiness readiness;

  AdminHttpHandler(PrometheusMeterRegistry registry, Readiness readiness) {
    this.registry = registry;
    this.readiness = readiness;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    String path = new QueryStringDecoder(request.uri()).path();
    FullHttpResponse response;
    if (!request.method().equals(HttpMethod.GET) && !request.method().equals(HttpMethod.HEAD)) {
      response = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "only GET\n");
    } else {
      response = switch (path) {
        case "/metrics" -> respond(HttpResponseStatus.OK, registry.scrape(), "text/plain; version=0.0.4; charset=utf-8");
        case "/healthz" -> text(HttpResponseStatus.OK, "ok\n");
        case "/readyz" -> ready();
        default -> text(HttpResponseStatus.NOT_FOUND, "not found; try /metrics, /healthz, /readyz\n");
      };
    }
    boolean keepAlive = HttpUtil.isKeepAlive(request);
    HttpUtil.setKeepAlive(response, keepAlive);
    var future = ctx.writeAndFlush(response);
    if (!keepAlive) {
      future.addListener(ChannelFutureListener.CLOSE);
    }
  }

  private FullHttpResponse ready() {
    StringBuilder body = new StringBuilder();
    boolean ready = readiness.isReady();
    body.append(ready ? "ready\n" : "not ready\n");
    for (Map.Entry<String, Boolean> e : readiness.snapshot().entrySet()) {
      body.append(e.getKey()).append(": ").append(e.getValue() ? "ready" : "not ready").append('\n');
    }
    return text(ready ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE, body.toString());
  }

  private static FullHttpResponse text(HttpResponseStatus status, String body) {
    return respond(status, body, "text/plain; charset=utf-8");
  }

  private static FullHttpResponse respond(HttpResponseStatus status, String body, String contentType) {
    ByteBuf content = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
    response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes());
    return response;
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("Admin connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }
}
