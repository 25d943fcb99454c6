package io.playline.bench.reads;

import com.google.gson.stream.JsonReader;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AttributeKey;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code bench reads --kind list-connect}: the same {@code ListHistory} first page as {@code page},
 * over the internal API's HTTP port as the Connect protocol in JSON — what a backend without gRPC
 * sends: HTTP/1.1 keep-alive from a pool of connections, one request in flight on each (the pool
 * grows to the requests in flight), on one Netty event loop, so that the client costs about what
 * the gRPC client costs and the run compares the server's work. Each answer is checked: status
 * 200, the page's records counted and each one's {@code uid} checked by a streaming JSON reader
 * (a backend reads the fields it needs; the bench's old full proto3 JSON parse on the JDK's client cost 11× the gRPC client's
 * CPU per page and capped the rate). Thread-safe.
 */
final class ConnectReads implements AutoCloseable {
  private static final AttributeKey<Pending> PENDING = AttributeKey.valueOf("pending");
  private static final int MAX_ANSWER_BYTES = 16 << 20;
  private static final long TIMEOUT_SECONDS = 10;

  /** The request a connection waits on: whose page, and what completes with it. */
  private record Pending(long uid, CompletableFuture<Integer> answer) {}

  private final EventLoopGroup group;
  private final Bootstrap bootstrap;
  private final ConcurrentLinkedQueue<Channel> idle = new ConcurrentLinkedQueue<>();
  private final AtomicInteger opened = new AtomicInteger();
  private final String path;
  private final String host;
  private final String authorization;
  private final int expected;

  /**
   * @param apiHttp the port's base URL ({@code playline.apiHttp} of the endpoints file)
   * @param authorization the {@code Authorization} value (a service token)
   * @param expected records a page must hold
   */
  ConnectReads(String apiHttp, String authorization, int expected) {
    URI base = URI.create(apiHttp);
    this.path = "/playline.v1.History/ListHistory";
    this.host = base.getHost() + ":" + base.getPort();
    this.authorization = authorization;
    this.expected = expected;
    boolean epoll = Epoll.isAvailable();
    this.group = epoll ? new EpollEventLoopGroup(1) : new NioEventLoopGroup(1);
    this.bootstrap = new Bootstrap().group(group).channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
        .remoteAddress(base.getHost(), base.getPort()).option(ChannelOption.TCP_NODELAY, true)
        .handler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(MAX_ANSWER_BYTES), new Answers());
          }
        });
  }

  /** The first page of {@code limit} records of {@code uid}: completes with its record count; fails on another status or a short page. */
  CompletionStage<Integer> page(long uid, int limit) {
    CompletableFuture<Integer> answer = new CompletableFuture<>();
    byte[] body = ("{\"uid\":\"" + uid + "\",\"limit\":" + limit + "}").getBytes(StandardCharsets.UTF_8);
    Channel ch = idle.poll();
    if (ch != null && ch.isActive()) {
      send(ch, uid, body, answer);
    } else {
      opened.incrementAndGet();
      bootstrap.connect().addListener(f -> {
        if (f.isSuccess()) {
          send(((io.netty.channel.ChannelFuture) f).channel(), uid, body, answer);
        } else {
          answer.completeExceptionally(f.cause());
        }
      });
    }
    return answer;
  }

  private void send(Channel ch, long uid, byte[] body, CompletableFuture<Integer> answer) {
    FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, path,
        Unpooled.wrappedBuffer(body));
    request.headers().set(HttpHeaderNames.HOST, host).set(HttpHeaderNames.CONTENT_TYPE, "application/json")
        .set("connect-protocol-version", "1").set(HttpHeaderNames.AUTHORIZATION, authorization);
    HttpUtil.setContentLength(request, body.length);
    ch.attr(PENDING).set(new Pending(uid, answer));
    var timeout = ch.eventLoop().schedule(() -> {
      if (answer.completeExceptionally(new TimeoutException("ListHistory over HTTP: no answer in " + TIMEOUT_SECONDS
          + " s"))) {
        ch.close();
      }
    }, TIMEOUT_SECONDS, TimeUnit.SECONDS);
    answer.whenComplete((n, failure) -> timeout.cancel(false));
    ch.writeAndFlush(request).addListener(f -> {
      if (!f.isSuccess()) {
        answer.completeExceptionally(f.cause());
        ch.close();
      }
    });
  }

  /** Connections opened so far (each one request in flight at a time). */
  int connections() {
    return opened.get();
  }

  @Override
  public void close() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** One connection's answers: completes its pending request and gives the connection back to the pool. */
  private final class Answers extends SimpleChannelInboundHandler<FullHttpResponse> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
      Pending pending = ctx.channel().attr(PENDING).getAndSet(null);
      if (pending == null) {
        ctx.close();
        return;
      }
      CompletableFuture<Integer> answer = pending.answer();
      long uid = pending.uid();
      try {
        if (!response.status().equals(HttpResponseStatus.OK)) {
          throw new IllegalStateException("ListHistory over HTTP: " + response.status() + " "
              + response.content().toString(StandardCharsets.UTF_8));
        }
        int records = records(response, uid);
        if (records != expected) {
          throw new IllegalStateException("incomplete answer: " + records + " of " + expected + " records");
        }
        if (HttpUtil.isKeepAlive(response)) {
          idle.add(ctx.channel());
        } else {
          ctx.close();
        }
        answer.complete(records);
      } catch (IOException | RuntimeException e) {
        ctx.close();
        answer.completeExceptionally(e);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      Pending pending = ctx.channel().attr(PENDING).getAndSet(null);
      if (pending != null) {
        pending.answer().completeExceptionally(new ClosedChannelException());
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      Pending pending = ctx.channel().attr(PENDING).getAndSet(null);
      if (pending != null) {
        pending.answer().completeExceptionally(cause);
      }
      ctx.close();
    }
  }

  /** The length of the answer's {@code records} array, read as a stream; every record must be {@code uid}'s. */
  private static int records(FullHttpResponse response, long uid) throws IOException {
    String user = Long.toString(uid);
    try (JsonReader json = new JsonReader(new InputStreamReader(new ByteBufInputStream(response.content()),
        StandardCharsets.UTF_8))) {
      int records = 0;
      json.beginObject();
      while (json.hasNext()) {
        if (!json.nextName().equals("records")) {
          json.skipValue();
          continue;
        }
        json.beginArray();
        for (; json.hasNext(); records++) {
          json.beginObject();
          while (json.hasNext()) {
            if (json.nextName().equals("uid")) {
              String owner = json.nextString();
              if (!owner.equals(user)) {
                throw new IllegalStateException("a record of user " + owner + " in the page of user " + user);
              }
            } else {
              json.skipValue();
            }
          }
          json.endObject();
        }
        json.endArray();
      }
      json.endObject();
      return records;
    }
  }
}
