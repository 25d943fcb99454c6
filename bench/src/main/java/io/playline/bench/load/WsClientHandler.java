package io.playline.bench.load;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.playline.proto.v1.ClientFrame;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * A deliberately lean WebSocket client for one player: writes the HTTP upgrade request, checks
 * for {@code 101}, then parses server frames in place (no frame objects; the cumulation buffer
 * exists only while a frame is partial) and writes masked binary frames. Enough RFC 6455 for a
 * server that sends whole unfragmented binary frames, which both Playline and the echo baseline do.
 *
 * <p>Confined to the channel's event loop.
 */
final class WsClientHandler extends ByteToMessageDecoder implements Player.Link {
  private static final int MAX_RESPONSE_HEAD = 8 * 1024;
  private static final int OP_BINARY = 0x2;
  private static final int OP_CLOSE = 0x8;
  private static final int OP_PING = 0x9;
  private static final ByteBuf CRLFCRLF =
      Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(new byte[] {'\r', '\n', '\r', '\n'}));

  private final Player player;
  private final byte[] upgradeRequest;
  private final String token;
  private final boolean wantFlag;
  private final ServerFrames.View view;
  private final int mask = ThreadLocalRandom.current().nextInt();
  private @Nullable ChannelHandlerContext ctx;
  private boolean upgraded;

  WsClientHandler(Player player, byte[] upgradeRequest, String token, boolean wantFlag, ServerFrames.View view) {
    this.player = player;
    this.upgradeRequest = upgradeRequest;
    this.token = token;
    this.wantFlag = wantFlag;
    this.view = view;
  }

  /** The upgrade request for {@code host:port}{@code path}, shared by every connection to it. */
  static byte[] upgradeRequest(String host, int port, String path) {
    return ("GET " + path + " HTTP/1.1\r\nHost: " + host + ":" + port
        + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        + "Sec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
  }

  @Override
  public void handlerAdded(ChannelHandlerContext c) {
    this.ctx = c;
  }

  @Override
  public void channelActive(ChannelHandlerContext c) throws Exception {
    c.writeAndFlush(c.alloc().buffer(upgradeRequest.length).writeBytes(upgradeRequest), c.voidPromise());
    super.channelActive(c);
  }

  @Override
  protected void decode(ChannelHandlerContext c, ByteBuf in, List<Object> out) throws IOException {
    if (!upgraded && !readUpgrade(c, in)) {
      return;
    }
    while (in.readableBytes() >= 2) {
      int ri = in.readerIndex();
      int b0 = in.getUnsignedByte(ri);
      int b1 = in.getUnsignedByte(ri + 1);
      int header = 2;
      long length = b1 & 0x7F;
      if (length == 126) {
        if (in.readableBytes() < 4) {
          return;
        }
        length = in.getUnsignedShort(ri + 2);
        header = 4;
      } else if (length == 127) {
        if (in.readableBytes() < 10) {
          return;
        }
        length = in.getLong(ri + 2);
        header = 10;
      }
      boolean masked = (b1 & 0x80) != 0;
      if (masked) {
        header += 4;
      }
      if (length > Integer.MAX_VALUE - header) {
        throw new IOException("frame too large: " + length);
      }
      if (in.readableBytes() < header + length) {
        return;
      }
      ByteBuf payload = in.retainedSlice(ri + header, (int) length);
      try {
        if (masked) {
          unmask(payload, in.getInt(ri + header - 4));
        }
        in.skipBytes(header + (int) length);
        onFrame(c, b0 & 0x0F, payload);
      } finally {
        payload.release();
      }
    }
  }

  private boolean readUpgrade(ChannelHandlerContext c, ByteBuf in) throws IOException {
    int end = ByteBufUtil.indexOf(CRLFCRLF, in);
    if (end < 0) {
      if (in.readableBytes() > MAX_RESPONSE_HEAD) {
        throw new IOException("no end of the upgrade response within " + MAX_RESPONSE_HEAD + " bytes");
      }
      return false;
    }
    String status = in.toString(in.readerIndex(), Math.min(12, in.readableBytes()), StandardCharsets.US_ASCII);
    if (!status.equals("HTTP/1.1 101")) {
      throw new IOException("upgrade refused: " + status);
    }
    in.readerIndex(end + CRLFCRLF.readableBytes());
    upgraded = true;
    player.onConnected(this, token);
    return true;
  }

  private void onFrame(ChannelHandlerContext c, int opcode, ByteBuf payload) throws IOException {
    switch (opcode) {
      case OP_BINARY -> {
        ServerFrames.decode(payload.nioBuffer(), view, wantFlag);
        player.onFrame(view);
      }
      case OP_CLOSE -> {
        int code = payload.readableBytes() >= 2 ? payload.getUnsignedShort(payload.readerIndex()) : 1005;
        player.onClosed(code);
        c.close();
      }
      case OP_PING -> c.writeAndFlush(frame(c.alloc().buffer(payload.readableBytes() + 6), 0x8A, payload), c.voidPromise());
      default -> { }
    }
  }

  private static void unmask(ByteBuf payload, int key) {
    for (int i = 0; i < payload.readableBytes(); i++) {
      int idx = payload.readerIndex() + i;
      payload.setByte(idx, payload.getByte(idx) ^ (key >>> (24 - 8 * (i & 3))));
    }
  }

  /** Writes a masked frame of {@code payload} into {@code out}. */
  private ByteBuf frame(ByteBuf out, int firstByte, ByteBuf payload) {
    int length = payload.readableBytes();
    out.writeByte(firstByte);
    if (length < 126) {
      out.writeByte(0x80 | length);
    } else {
      out.writeByte(0x80 | 126);
      out.writeShort(length);
    }
    out.writeInt(mask);
    for (int i = 0; i < length; i++) {
      out.writeByte(payload.getByte(payload.readerIndex() + i) ^ (mask >>> (24 - 8 * (i & 3))));
    }
    return out;
  }

  @Override
  public boolean send(ClientFrame frame) {
    ChannelHandlerContext c = ctx;
    if (c == null || !c.channel().isActive()) {
      return false;
    }
    byte[] bytes = frame.toByteArray();
    if (bytes.length > 0xFFFF) {
      throw new IllegalArgumentException("frame of " + bytes.length + " bytes; the bench writes small frames only");
    }
    ByteBuf out = c.alloc().buffer(bytes.length + 8);
    out.writeByte(0x82);
    if (bytes.length < 126) {
      out.writeByte(0x80 | bytes.length);
    } else {
      out.writeByte(0x80 | 126);
      out.writeShort(bytes.length);
    }
    out.writeInt(mask);
    for (int i = 0; i < bytes.length; i++) {
      out.writeByte(bytes[i] ^ (mask >>> (24 - 8 * (i & 3))));
    }
    c.writeAndFlush(out, c.voidPromise());
    return true;
  }

  @Override
  public void close() {
    ChannelHandlerContext c = ctx;
    if (c != null) {
      c.close();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext c) throws Exception {
    player.onClosed(0);
    super.channelInactive(c);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext c, Throwable cause) {
    c.close();
  }
}
