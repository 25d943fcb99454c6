package io.playline.bench.hostile;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Just enough HTTP/2 framing (RFC 9113) for attackers that must not behave like a client library:
 * the connection preface with an empty SETTINGS frame, frame headers, and a reader that skips
 * every frame the node sends, acknowledges its SETTINGS and PINGs (so the node sees a live peer)
 * and counts GOAWAY as a refusal. Stateless helpers; the reader is confined to its channel's loop.
 */
final class RawHttp2 {
  static final int DATA = 0x0;
  static final int HEADERS = 0x1;
  static final int RST_STREAM = 0x3;
  static final int SETTINGS = 0x4;
  static final int PING = 0x6;
  static final int GOAWAY = 0x7;
  static final int FLAG_ACK = 0x1;
  static final int FLAG_END_HEADERS = 0x4;
  static final int CANCEL = 0x8;
  private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  private RawHttp2() {}

  /** The client connection preface followed by an empty SETTINGS frame. */
  static ByteBuf preface(ByteBufAllocator alloc) {
    ByteBuf b = alloc.buffer(PREFACE.length + 9);
    b.writeBytes(PREFACE);
    frameHeader(b, 0, SETTINGS, 0, 0);
    return b;
  }

  /** Writes a 9-byte frame header. */
  static void frameHeader(ByteBuf b, int length, int type, int flags, int streamId) {
    b.writeMedium(length);
    b.writeByte(type);
    b.writeByte(flags);
    b.writeInt(streamId & 0x7FFFFFFF);
  }

  /** Reads the node's frames; see the class comment. */
  static final class Reader extends ByteToMessageDecoder {
    private final AttackStats stats;
    private final String label;

    Reader(AttackStats stats, String label) {
      this.stats = stats;
      this.label = label;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
      while (in.readableBytes() >= 9) {
        int ri = in.readerIndex();
        int length = in.getUnsignedMedium(ri);
        if (in.readableBytes() < 9 + length) {
          return;
        }
        int type = in.getUnsignedByte(ri + 3);
        int flags = in.getUnsignedByte(ri + 4);
        if (type == SETTINGS && (flags & FLAG_ACK) == 0) {
          ByteBuf ack = ctx.alloc().buffer(9);
          frameHeader(ack, 0, SETTINGS, FLAG_ACK, 0);
          ctx.writeAndFlush(ack, ctx.voidPromise());
        } else if (type == PING && (flags & FLAG_ACK) == 0 && length == 8) {
          ByteBuf ack = ctx.alloc().buffer(17);
          frameHeader(ack, 8, PING, FLAG_ACK, 0);
          ack.writeBytes(in, ri + 9, 8);
          ctx.writeAndFlush(ack, ctx.voidPromise());
        } else if (type == GOAWAY) {
          stats.refused(label + "goaway");
        }
        in.skipBytes(9 + length);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
