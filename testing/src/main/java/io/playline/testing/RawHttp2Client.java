package io.playline.testing;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http2.DefaultHttp2FrameReader;
import io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An HTTP/2 client that writes whatever frames a test asks for, with none of a real client's
 * manners (no stream limit, no flow control): an attacker on one TCP connection. Records the GOAWAY
 * and RST_STREAM frames it reads (a server that closes while the client still sends may reset the
 * socket before they arrive) and whether the server closed the connection.
 */
public final class RawHttp2Client implements AutoCloseable {
  private static final EventLoopGroup LOOP = new NioEventLoopGroup(1);

  private volatile Channel channel;
  private final DefaultHttp2FrameWriter writer = new DefaultHttp2FrameWriter();
  private volatile ChannelHandlerContext ctx;
  /** The error code of the GOAWAY received, -1 before one. */
  public final AtomicLong goAwayError = new AtomicLong(-1);
  public final AtomicLong rstStreamsReceived = new AtomicLong();
  /** HEADERS frames the server sent (a call's response headers or trailers). */
  public final AtomicLong headersReceived = new AtomicLong();
  /** Each {@code grpc-status} the server sent (in trailers), with its {@code grpc-message}: "8 message". */
  public final java.util.Queue<String> statuses = new java.util.concurrent.ConcurrentLinkedQueue<>();
  private int nextStreamId = 1;
  /** Confined to the channel's loop: a SETTINGS ACK may only follow our preface. */
  private boolean prefaceSent;
  private boolean ackPending;

  private RawHttp2Client() {}

  /** Connects and sends only the TCP handshake (no preface). */
  public static RawHttp2Client tcp(int port) {
    RawHttp2Client self = new RawHttp2Client();
    self.channel = new Bootstrap().group(LOOP).channel(NioSocketChannel.class)
        .option(ChannelOption.AUTO_READ, true)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel c) {
            c.pipeline().addLast(new Reader(self));
          }
        })
        .connect(new InetSocketAddress("127.0.0.1", port)).syncUninterruptibly().channel();
    return self;
  }

  /** Connects and sends the client preface and an empty SETTINGS: a connection that opened no stream. */
  public static RawHttp2Client connect(int port) {
    RawHttp2Client c = tcp(port);
    c.run(() -> {
      c.ctx.write(Http2CodecUtil.connectionPrefaceBuf());
      c.writer.writeSettings(c.ctx, new Http2Settings(), c.ctx.newPromise());
      c.prefaceSent = true;
      if (c.ackPending) {
        c.writer.writeSettingsAck(c.ctx, c.ctx.newPromise());
      }
      c.ctx.flush();
    });
    return c;
  }

  private void status(Http2Headers headers) {
    CharSequence status = headers.get("grpc-status");
    if (status != null) {
      CharSequence message = headers.get("grpc-message");
      statuses.add(status + " " + (message == null ? "" : message));
    }
  }

  private void run(Runnable task) {
    channel.eventLoop().submit(task).syncUninterruptibly();
  }

  /** The request headers of a gRPC call of {@code path} (add metadata to them before use). */
  public static Http2Headers callHeaders(String path) {
    return new DefaultHttp2Headers().method("POST").scheme("http").path(path)
        .authority("127.0.0.1").add("content-type", "application/grpc").add("te", "trailers");
  }

  /**
   * Opens {@code n} player streams ({@code Connect}; HEADERS without end of stream), each followed by
   * RST_STREAM when {@code reset}.
   */
  public void streams(int n, boolean reset) {
    streams("/playline.v1.Gateway/Connect", n, reset);
  }

  /** Opens {@code n} calls of {@code path} (HEADERS without end of stream), each followed by RST_STREAM when {@code reset}. */
  public void streams(String path, int n, boolean reset) {
    streams(callHeaders(path), n, reset);
  }

  /** Opens {@code n} streams with {@code headers} (without end of stream), each followed by RST_STREAM when {@code reset}. */
  public void streams(Http2Headers headers, int n, boolean reset) {
    run(() -> {
      for (int i = 0; i < n && channel.isActive(); i++) {
        int id = nextStreamId;
        nextStreamId += 2;
        writer.writeHeaders(ctx, id, headers, 0, false, ctx.newPromise());
        if (reset) {
          writer.writeRstStream(ctx, id, Http2Error.CANCEL.code(), ctx.newPromise());
        }
      }
      ctx.flush();
    });
  }

  /** Opens one call with {@code headers} and sends {@code body} (gRPC's framing included) as its only DATA frame. */
  public void call(Http2Headers headers, byte[] body) {
    run(() -> {
      int id = nextStreamId;
      nextStreamId += 2;
      writer.writeHeaders(ctx, id, headers, 0, false, ctx.newPromise());
      writer.writeData(ctx, id, io.netty.buffer.Unpooled.wrappedBuffer(body), 0, true, ctx.newPromise());
      ctx.flush();
    });
  }

  public boolean closed() {
    return !channel.isActive();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
  }

  /** Reads the server's frames: acknowledges its SETTINGS and PINGs, records GOAWAY, RST_STREAM and HEADERS. */
  private static final class Reader extends ByteToMessageDecoder {
    private final RawHttp2Client c;
    private final DefaultHttp2FrameReader reader = new DefaultHttp2FrameReader();

    Reader(RawHttp2Client client) {
      this.c = client;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      c.ctx = ctx;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
      reader.readFrame(ctx, in, new Http2FrameAdapter() {
        @Override
        public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
          if (c.prefaceSent) {
            c.writer.writeSettingsAck(ctx, ctx.newPromise());
            ctx.flush();
          } else {
            c.ackPending = true;
          }
        }

        @Override
        public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
          c.goAwayError.compareAndSet(-1, errorCode);
        }

        @Override
        public void onPingRead(ChannelHandlerContext ctx, long data) {
          // As every HTTP/2 client must: a server draining the connection waits for this ack.
          c.writer.writePing(ctx, true, data, ctx.newPromise());
          ctx.flush();
        }

        @Override
        public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
          c.rstStreamsReceived.incrementAndGet();
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding,
            boolean endOfStream) {
          c.headersReceived.incrementAndGet();
          c.status(headers);
        }

        @Override
        public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
            short weight, boolean exclusive, int padding, boolean endOfStream) {
          c.headersReceived.incrementAndGet();
          c.status(headers);
        }
      });
    }
  }
}
