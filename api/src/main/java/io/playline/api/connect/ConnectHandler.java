package io.playline.api.connect;

import static io.playline.api.connect.ConnectRequests.JSON;
import static io.playline.api.connect.ConnectRequests.PROTO;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import io.grpc.Attributes;
import io.grpc.Grpc;
import io.grpc.Status;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
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
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.playline.api.connect.ConnectRoutes.Route;
import io.playline.node.admin.HttpBudget;
import io.playline.time.Time;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/1.1 connection of the Connect port: reads each whole request, finds its method, decodes
 * its message (JSON by the proto3 mapping, or binary), runs it as a {@link UnaryCall} and answers
 * in the order the requests came (pipelining), at most {@code maxPipelined} ahead. {@code
 * Connect-Timeout-Ms} bounds a call ({@code deadline_exceeded}); a closed connection cancels its
 * calls. Confined to the connection's event loop (answers arrive from any thread and are handed
 * back to it).
 */
final class ConnectHandler extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(ConnectHandler.class);
  /** The media types a POST may carry, named in a 415 as {@code Accept} (RFC 9110 15.5.16) and {@code Accept-Post}. */
  private static final String ACCEPTED = JSON + ", " + PROTO;

  /** Marks a request the aggregator refused for its size. */
  enum TooLarge { INSTANCE }

  /** A request read and not yet answered on the wire. */
  private static final class Pending {
    boolean keepAlive;
    @Nullable FullHttpResponse response;
    @Nullable UnaryCall<?, ?> call;
    @Nullable ScheduledFuture<?> deadline;

    Pending(boolean keepAlive) {
      this.keepAlive = keepAlive;
    }
  }

  private final ConnectRoutes routes;
  private final ConnectMetrics metrics;
  private final int maxPipelined;
  private final int maxRequestBytes;
  private final long callTimeoutMs;
  private final Time time;
  private final ArrayDeque<Pending> pending = new ArrayDeque<>();
  /** An answer that closes the connection is queued: later requests are not run (RFC 9112 9.6). */
  private boolean closing;

  ConnectHandler(ConnectRoutes routes, ConnectMetrics metrics, int maxPipelined, int maxRequestBytes,
      long callTimeoutMs, Time time) {
    this.time = time;
    this.routes = routes;
    this.metrics = metrics;
    this.maxPipelined = maxPipelined;
    this.maxRequestBytes = maxRequestBytes;
    this.callTimeoutMs = callTimeoutMs;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (closing) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (pending.size() >= maxPipelined) {
      ReferenceCountUtil.release(msg);
      metrics.refusedPipelined();
      log.debug("Closing API HTTP connection {}: more than api.http.max.pipelined {} requests ahead of their answers",
          ctx.channel().remoteAddress(), maxPipelined);
      ctx.close();
      return;
    }
    if (msg == TooLarge.INSTANCE) {
      Pending p = queue(ctx, false);
      p.response = error(Status.RESOURCE_EXHAUSTED.withDescription("request larger than " + maxRequestBytes
          + " bytes (frame.max.bytes)"), "unknown");
      flushAnswered(ctx);
      return;
    }
    if (!(msg instanceof FullHttpRequest request)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    try {
      Pending p = queue(ctx, HttpUtil.isKeepAlive(request) && request.decoderResult().isSuccess());
      handle(ctx, request, p);
    } finally {
      request.release();
    }
    flushAnswered(ctx);
  }

  /** A new request's place in the line; one that does not keep the connection alive is the last read. */
  private Pending queue(ChannelHandlerContext ctx, boolean keepAlive) {
    Pending p = new Pending(keepAlive);
    pending.add(p);
    if (!keepAlive) {
      closing = true;
      ctx.channel().config().setAutoRead(false);
    }
    return p;
  }

  private void handle(ChannelHandlerContext ctx, FullHttpRequest request, Pending p) {
    if (!request.decoderResult().isSuccess()) {
      p.response = plain(HttpResponseStatus.BAD_REQUEST, "malformed HTTP request");
      return;
    }
    String path;
    Map<String, List<String>> query;
    try {
      QueryStringDecoder uri = new QueryStringDecoder(request.uri());
      path = uri.path();
      query = uri.parameters();
    } catch (IllegalArgumentException e) {
      p.response = error(Status.INVALID_ARGUMENT.withDescription(
          "malformed request target (expected: a path and a URL-encoded query)"), "unknown",
          HttpResponseStatus.BAD_REQUEST);
      return;
    }
    Route route = routes.route(path);
    if (route == null) {
      p.response = error(Status.UNIMPLEMENTED.withDescription("no method " + path
          + " (methods are POST /playline.v1.History/<Method>)"), "unknown", HttpResponseStatus.NOT_FOUND);
      return;
    }
    boolean get = request.method().equals(HttpMethod.GET);
    if (!get && !request.method().equals(HttpMethod.POST) || get && !route.get()) {
      p.response = plain(HttpResponseStatus.METHOD_NOT_ALLOWED, route.name() + " takes " + (route.get() ? "POST or GET"
          : "POST"));
      p.response.headers().set(HttpHeaderNames.ALLOW, route.get() ? "POST, GET" : "POST");
      return;
    }
    String codec;
    Long timeoutMs;
    try {
      String version = get ? ConnectRequests.first(query, "connect") : request.headers().get("connect-protocol-version");
      if (version != null && !version.equals(get ? "v1" : "1")) {
        throw new ConnectRequests.Refused(Status.INVALID_ARGUMENT.withDescription("unsupported Connect protocol version "
            + version));
      }
      if (get) {
        codec = ConnectRequests.getCodec(query);
      } else {
        codec = ConnectRequests.postCodec(request.headers().get(HttpHeaderNames.CONTENT_TYPE));
        if (codec == null) {
          p.response = plain(HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE, "Content-Type must be " + JSON + " or " + PROTO);
          p.response.headers().set(HttpHeaderNames.ACCEPT, ACCEPTED).set("accept-post", ACCEPTED);
          return;
        }
        String encoding = request.headers().get(HttpHeaderNames.CONTENT_ENCODING);
        if (encoding != null && !encoding.equalsIgnoreCase("identity")) {
          throw new ConnectRequests.Refused(Status.UNIMPLEMENTED.withDescription("Content-Encoding " + encoding
              + " is not supported: send identity"));
        }
      }
      timeoutMs = ConnectRequests.timeoutMs(request.headers().get("connect-timeout-ms"));
      if (timeoutMs != null && timeoutMs < 0) {
        throw new ConnectRequests.Refused(Status.INVALID_ARGUMENT.withDescription(
            "Connect-Timeout-Ms: expected 1 to 10 digits"));
      }
    } catch (ConnectRequests.Refused e) {
      p.response = error(e.status, route.name());
      return;
    }
    // The interceptors (credentials) run before the body is decoded, as on the gRPC port.
    UnaryCall<Object, Object> call = UnaryCall.start(route.definition(), ConnectRequests.metadata(request),
        attributes(ctx), request.headers().get(HttpHeaderNames.HOST));
    p.call = call;
    long limitMs = timeoutMs == null ? callTimeoutMs : Math.min(timeoutMs, callTimeoutMs);
    String why = timeoutMs != null && timeoutMs <= callTimeoutMs ? "Connect-Timeout-Ms " + timeoutMs
        : "api.http.call.timeout " + callTimeoutMs + " ms";
    p.deadline = time.schedule(ctx.executor(), () -> call.cancel(Status.DEADLINE_EXCEEDED.withDescription(
        "no answer within " + why)), limitMs, TimeUnit.MILLISECONDS);
    String name = route.name();
    call.result().whenComplete((result, failure) -> {
      if (ctx.executor().inEventLoop()) {
        answered(ctx, p, result, failure, codec, name); // completed on this loop (a refusal, a deadline): no hop
      } else {
        ctx.executor().execute(() -> answered(ctx, p, result, failure, codec, name));
      }
    });
    if (!call.result().isDone()) {
      try {
        call.send(ConnectRequests.decode(route, codec, get ? ConnectRequests.getBody(query)
            : ByteBufUtil.getBytes(request.content())));
      } catch (ConnectRequests.Refused e) {
        call.cancel(e.status);
      }
    }
  }

  /** On the loop: a call ended; its answer joins the line. */
  private void answered(ChannelHandlerContext ctx, Pending p, UnaryCall.@Nullable Result result,
      @Nullable Throwable failure, String codec, String name) {
    if (p.deadline != null) {
      p.deadline.cancel(false);
    }
    if (!ctx.channel().isActive()) {
      return; // cancelled with its connection: nobody to answer
    }
    if (result != null && result.status().getCode() == Status.Code.UNAUTHENTICATED) {
      // No credential, or not a valid one: answered, then closed, so that clients without one cannot
      // hold the port's connections (HttpBudget), and nothing pipelined behind it runs.
      p.keepAlive = false;
      closing = true;
      ctx.channel().config().setAutoRead(false);
    } else if (result != null) {
      HttpBudget.proven(ctx.channel()); // past the credential check: a backend's connection stays
    }
    try {
      p.response = failure != null || result == null ? error(Status.UNKNOWN.withDescription("the service failed"), name)
          : answer(ctx, result, codec, name);
    } catch (RuntimeException e) {
      log.warn("Answering {} failed: {}", name, e.toString());
      p.response = error(Status.INTERNAL.withDescription("the answer could not be encoded"), name);
    }
    flushAnswered(ctx);
  }

  /** Writes the answers at the head of the line, in request order; closes after one that does not keep alive. */
  private void flushAnswered(ChannelHandlerContext ctx) {
    boolean wrote = false;
    while (!pending.isEmpty() && pending.peek().response != null) {
      Pending p = pending.poll();
      FullHttpResponse response = p.response;
      HttpUtil.setContentLength(response, response.content().readableBytes());
      if (!p.keepAlive) {
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        cancelAll(Status.CANCELLED.withDescription("connection closed"));
        return;
      }
      ctx.write(response);
      wrote = true;
    }
    if (wrote) {
      ctx.flush();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    cancelAll(Status.CANCELLED.withDescription("the client closed the connection"));
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("API HTTP connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }

  private void cancelAll(Status status) {
    for (Pending p; (p = pending.poll()) != null; ) {
      if (p.deadline != null) {
        p.deadline.cancel(false);
      }
      if (p.call != null) {
        p.call.cancel(status);
      }
      ReferenceCountUtil.release(p.response);
    }
  }

  /** A call's answer: its response (headers, then trailers as {@code trailer-*}), or its error with its metadata. */
  private FullHttpResponse answer(ChannelHandlerContext ctx, UnaryCall.Result result, String codec, String method) {
    if (!result.status().isOk() || !(result.response() instanceof Message response)) {
      FullHttpResponse error = error(result.status().isOk() ? Status.INTERNAL.withDescription("no response")
          : result.status(), method);
      ConnectMetadata.copy(result.headers(), error.headers(), "");
      ConnectMetadata.copy(result.trailers(), error.headers(), "");
      return error;
    }
    ByteBuf body;
    if (codec.equals(JSON)) {
      body = ctx.alloc().buffer(2 * response.getSerializedSize() + 16);
      try {
        JsonPrinter.print(response, body);
      } catch (InvalidProtocolBufferException | RuntimeException e) {
        body.release();
        return error(Status.INTERNAL.withDescription("the response does not print as JSON"), method);
      }
    } else {
      body = Unpooled.wrappedBuffer(response.toByteArray());
    }
    metrics.answered(method, Status.Code.OK);
    FullHttpResponse http = response(HttpResponseStatus.OK, codec, body);
    ConnectMetadata.copy(result.headers(), http.headers(), "");
    ConnectMetadata.copy(result.trailers(), http.headers(), "trailer-");
    return http;
  }

  private FullHttpResponse error(Status status, String method) {
    return error(status, method, ConnectErrors.httpStatus(status.getCode()));
  }

  private FullHttpResponse error(Status status, String method, HttpResponseStatus http) {
    metrics.answered(method, status.getCode());
    return response(http, JSON, ConnectErrors.body(status));
  }

  private static FullHttpResponse plain(HttpResponseStatus status, String text) {
    return response(status, "text/plain; charset=utf-8", (text + "\n").getBytes(StandardCharsets.UTF_8));
  }

  private static FullHttpResponse response(HttpResponseStatus status, String contentType, byte[] body) {
    return response(status, contentType, Unpooled.wrappedBuffer(body));
  }

  private static FullHttpResponse response(HttpResponseStatus status, String contentType, ByteBuf body) {
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
    return response;
  }

  private static Attributes attributes(ChannelHandlerContext ctx) {
    SocketAddress remote = ctx.channel().remoteAddress();
    SocketAddress local = ctx.channel().localAddress();
    Attributes.Builder a = Attributes.newBuilder();
    if (remote != null) {
      a.set(Grpc.TRANSPORT_ATTR_REMOTE_ADDR, remote);
    }
    if (local != null) {
      a.set(Grpc.TRANSPORT_ATTR_LOCAL_ADDR, local);
    }
    SslHandler ssl = ctx.pipeline().get(SslHandler.class);
    if (ssl != null) {
      a.set(Grpc.TRANSPORT_ATTR_SSL_SESSION, ssl.engine().getSession());
    }
    return a.build();
  }
}
