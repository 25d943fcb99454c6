package io.playline.bench.hostile;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Writes an attack's frames as fast as the socket takes them: from {@code channelActive}, while
 * the channel is writable, {@code perFlush} at a time, then again from a task on the loop (so other
 * connections on the loop get their turn), resuming when the channel becomes writable again; stops
 * when the attacker's time or operations run out. Confined to the channel's event loop.
 */
abstract class FloodPump extends ChannelInboundHandlerAdapter {
  private final Attacker owner;
  private final int perFlush;
  private boolean scheduled;

  FloodPump(Attacker owner, int perFlush) {
    this.owner = owner;
    this.perFlush = perFlush;
  }

  /** What to write before the flood (a preface, an upgrade request). */
  abstract void start(ChannelHandlerContext ctx);

  /** Writes (without flushing) one unit of the flood; false when the connection must stop. */
  abstract boolean writeOne(ChannelHandlerContext ctx);

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    start(ctx);
    pump(ctx);
    ctx.fireChannelActive();
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    pump(ctx);
    ctx.fireChannelWritabilityChanged();
  }

  /** A failed write or a reset from the node: the connection ends (counted by its close), quietly. */
  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }

  private void pump(ChannelHandlerContext ctx) {
    scheduled = false;
    int n = 0;
    boolean more = true;
    while (more && ctx.channel().isActive() && ctx.channel().isWritable() && n < perFlush && owner.alive()) {
      more = writeOne(ctx);
      n += more ? 1 : 0;
    }
    ctx.flush();
    owner.stats.sent(n);
    if (n == perFlush && owner.running() && !scheduled) {
      scheduled = true;
      ctx.executor().execute(() -> pump(ctx));
    }
  }
}
