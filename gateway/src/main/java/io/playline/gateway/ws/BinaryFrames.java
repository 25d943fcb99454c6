package io.playline.gateway.ws;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * A binary WebSocket frame the server sends, header and payload in one buffer: the edge writes a
 * frame's payload right after the header it writes here and hands the pipeline these bytes, which
 * Netty's WebSocket encoder passes on untouched (it encodes only {@code WebSocketFrame}s). Each
 * frame thus takes one buffer and no copy, where a {@code BinaryWebSocketFrame} takes the payload's
 * buffer, the encoder's header buffer and a copy of the payload into it. The header is RFC 6455's
 * for a server: FIN, opcode binary, unmasked, the length in 7, 16 or 64 bits; no extension is
 * negotiated ({@code allowExtensions(false)}), so no RSV bit is ever set. {@code BinaryFramesTest}
 * holds these bytes equal to Netty's encoder's. Public for the benchmarks ({@code bench jmh AckPath}).
 * Stateless.
 */
public final class BinaryFrames {
  private static final int FIN_BINARY = 0x82;

  private BinaryFrames() {}

  /**
   * A buffer holding the header of a binary frame of {@code payloadBytes}, with room for exactly
   * that payload after it: write the payload, then write the buffer to the channel.
   */
  public static ByteBuf allocate(ByteBufAllocator alloc, int payloadBytes) {
    int header = headerBytes(payloadBytes);
    ByteBuf buf = alloc.buffer(header + payloadBytes, header + payloadBytes);
    buf.writeByte(FIN_BINARY);
    if (payloadBytes <= 125) {
      buf.writeByte(payloadBytes);
    } else if (payloadBytes <= 0xFFFF) {
      buf.writeByte(126);
      buf.writeShort(payloadBytes);
    } else {
      buf.writeByte(127);
      buf.writeLong(payloadBytes);
    }
    return buf;
  }

  static int headerBytes(int payloadBytes) {
    if (payloadBytes < 0) {
      throw new IllegalArgumentException("negative payload length " + payloadBytes);
    }
    return payloadBytes <= 125 ? 2 : payloadBytes <= 0xFFFF ? 4 : 10;
  }
}
