package io.playline.bench.hostile;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Idle HTTP/2 connections on the player gRPC port: {@link AttackTarget#idleConnections()}
 * connections (opened 100 per 100 ms) that send the preface and SETTINGS, acknowledge the node's
 * SETTINGS and PINGs, and open no stream. Closed ones are not reopened, so the report's open count
 * and longest life say how many the node let stay and for how long.
 */
final class IdleHttp2Attacker extends Attacker {
  private static final int PER_BATCH = 100;

  IdleHttp2Attacker(AttackTarget target, EventLoopGroup group, boolean epoll, Duration length) {
    super(AttackKind.IDLE_H2, target, group, epoll, length);
  }

  @Override
  void begin() {
    EventLoopGroup loops = group();
    for (int i = 0; i < target.idleConnections(); i += PER_BATCH) {
      int count = Math.min(PER_BATCH, target.idleConnections() - i);
      loops.schedule(() -> {
        for (int k = 0; k < count && running(); k++) {
          stats.sent(1);
          open(target.grpc(), "", false, Duration.ZERO);
        }
      }, i / PER_BATCH * 100L, TimeUnit.MILLISECONDS);
    }
  }

  @Override
  void init(Channel ch, String label) {
    ch.pipeline().addLast(new RawHttp2.Reader(stats, label), new ChannelInboundHandlerAdapter() {
      @Override
      public void channelActive(ChannelHandlerContext ctx) {
        ctx.writeAndFlush(RawHttp2.preface(ctx.alloc()), ctx.voidPromise());
        ctx.fireChannelActive();
      }
    });
  }
}
