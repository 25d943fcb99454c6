package io.playline.node.admin;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
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
import io.netty.util.concurrent.EventExecutor;
import io.playline.time.Time;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves {@code /metrics} (Prometheus text format; with {@code admin.token} set, only to requests
 * bearing it: 401 otherwise), {@code /livez} (the process is alive: every
 * event loop of the node runs a task within {@link #LIVENESS_TIMEOUT_MS}; {@code /healthz} is the
 * same) and {@code /readyz} (every required component is ready: 200, else 503; the body lists
 * each component, required or only reported). Stateless and sharable; runs on the admin channel's
 * event loop and never blocks.
 */
@Sharable
final class AdminHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
  private static final Logger log = LoggerFactory.getLogger(AdminHttpHandler.class);

  static final long LIVENESS_TIMEOUT_MS = 2_000;

  private final PrometheusMeterRegistry registry;
  private final Readiness readiness;
  private final EventLoopGroup watched;
  private final AdminConfig access;
  private final Time time;

  /** {@code watched}: the loops {@code /livez} checks (the node's I/O loops); its timeout passes by {@code time}. */
  AdminHttpHandler(PrometheusMeterRegistry registry, Readiness readiness, EventLoopGroup watched, AdminConfig access,
      Time time) {
    this.registry = registry;
    this.time = time;
    this.readiness = readiness;
    this.watched = watched;
    this.access = access;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    if (!request.decoderResult().isSuccess()) {
      // A request cut short (the connection closed, or timed out, before its headers ended) or
      // malformed: answered with 400 and closed, never served — a half-sent GET /metrics must not
      // cost a scrape.
      FullHttpResponse bad = text(HttpResponseStatus.BAD_REQUEST, "malformed or incomplete request\n");
      reply(ctx, false, bad);
      return;
    }
    String path = new QueryStringDecoder(request.uri()).path();
    boolean keepAlive = HttpUtil.isKeepAlive(request);
    if (!request.method().equals(HttpMethod.GET) && !request.method().equals(HttpMethod.HEAD)) {
      reply(ctx, keepAlive, text(HttpResponseStatus.METHOD_NOT_ALLOWED, "only GET\n"));
      return;
    }
    switch (path) {
      case "/metrics" -> {
        if (access.permits(request.headers().get(HttpHeaderNames.AUTHORIZATION))) {
          if (access.token() != null) {
            HttpBudget.proven(ctx.channel()); // a scraper with the token keeps its connection however full the port
          }
          reply(ctx, keepAlive,
              respond(HttpResponseStatus.OK, registry.scrape(), "text/plain; version=0.0.4; charset=utf-8"));
        } else {
          FullHttpResponse refused = text(HttpResponseStatus.UNAUTHORIZED,
              "/metrics needs Authorization: Bearer <admin.token>\n");
          refused.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"playline-admin\"");
          reply(ctx, keepAlive, refused);
        }
      }
      case "/livez", "/healthz" -> live(ctx, keepAlive);
      case "/readyz" -> reply(ctx, keepAlive, ready());
      default -> reply(ctx, keepAlive, text(HttpResponseStatus.NOT_FOUND, "not found; try /metrics, /livez, /readyz\n"));
    }
  }

  private static void reply(ChannelHandlerContext ctx, boolean keepAlive, FullHttpResponse response) {
    HttpUtil.setKeepAlive(response, keepAlive);
    var future = ctx.writeAndFlush(response);
    if (!keepAlive) {
      future.addListener(ChannelFutureListener.CLOSE);
    }
  }

  /** Answers once every watched loop ran a no-op task, or 503 naming the stuck ones after the timeout. */
  private void live(ChannelHandlerContext ctx, boolean keepAlive) {
    List<EventExecutor> loops = new ArrayList<>();
    watched.forEach(loops::add);
    AtomicInteger left = new AtomicInteger(loops.size());
    AtomicBoolean answered = new AtomicBoolean();
    AtomicIntegerArray ran = new AtomicIntegerArray(loops.size());
    ScheduledFuture<?> timeout = time.schedule(ctx.executor(), () -> {
      if (answered.compareAndSet(false, true)) {
        StringBuilder stuck = new StringBuilder("not live: event loops not answering within "
            + LIVENESS_TIMEOUT_MS + " ms:");
        for (int i = 0; i < loops.size(); i++) {
          if (ran.get(i) == 0) {
            stuck.append(' ').append(i);
          }
        }
        reply(ctx, keepAlive, text(HttpResponseStatus.SERVICE_UNAVAILABLE, stuck.append('\n').toString()));
      }
    }, LIVENESS_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    for (int i = 0; i < loops.size(); i++) {
      int index = i;
      loops.get(i).execute(() -> {
        ran.set(index, 1);
        if (left.decrementAndGet() == 0 && answered.compareAndSet(false, true)) {
          timeout.cancel(false);
          ctx.executor().execute(() -> reply(ctx, keepAlive, text(HttpResponseStatus.OK, "ok\n")));
        }
      });
    }
  }

  private FullHttpResponse ready() {
    StringBuilder body = new StringBuilder();
    boolean ready = readiness.isReady();
    body.append(ready ? "ready\n" : "not ready\n");
    for (Map.Entry<String, Readiness.Component> e : readiness.snapshot().entrySet()) {
      body.append(e.getKey()).append(": ").append(e.getValue().ready() ? "ready" : "not ready");
      if (e.getValue().detail() != null) {
        body.append(" (").append(e.getValue().detail()).append(')');
      }
      if (!e.getValue().required()) {
        body.append(" (reported, not required)");
      }
      body.append('\n');
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
