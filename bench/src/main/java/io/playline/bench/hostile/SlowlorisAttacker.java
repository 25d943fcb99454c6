package io.playline.bench.hostile;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Slowloris: as many connections as it may hold ({@link AttackTarget#idleConnections()}) to the
 * WebSocket port and as many to the admin port, each sending the request line and {@code Host},
 * then one byte of an endless header every {@link AttackTarget#slowlorisInterval()}. Refusals are
 * labelled {@code ws-} or {@code admin-}; closed connections are reopened. Whatever the node answers
 * is read and dropped.
 */
final class SlowlorisAttacker extends Attacker {
  SlowlorisAttacker(AttackTarget target, EventLoopGroup group, boolean epoll, Duration length) {
    super(AttackKind.SLOWLORIS, target, group, epoll, length);
  }

  @Override
  void begin() {
    for (int i = 0; i < target.idleConnections(); i++) {
      open(target.websocketAddress(), "ws-", true, Duration.ofMillis(200));
      open(target.admin(), "admin-", true, Duration.ofMillis(200));
    }
  }

  @Override
  void init(Channel ch, String label) {
    String path = label.equals("ws-") ? target.websocket().getPath() : "/metrics";
    byte[] head = ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ").getBytes(StandardCharsets.US_ASCII);
    ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
      @Override
      public void channelActive(ChannelHandlerContext ctx) {
        ctx.writeAndFlush(Unpooled.wrappedBuffer(head), ctx.voidPromise());
        stats.sent(head.length);
        drip(ctx);
        ctx.fireChannelActive();
      }

      private void drip(ChannelHandlerContext ctx) {
        ctx.executor().schedule(() -> {
          if (ctx.channel().isActive() && running()) {
            ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {'a'}), ctx.voidPromise());
            stats.sent(1);
            drip(ctx);
          }
        }, target.slowlorisInterval().toNanos(), TimeUnit.NANOSECONDS);
      }

      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ReferenceCountUtil.release(msg);
      }

      @Override
      public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
      }
    });
  }
}
