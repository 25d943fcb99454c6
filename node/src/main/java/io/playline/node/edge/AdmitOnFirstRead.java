package io.playline.node.edge;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.util.function.BooleanSupplier;

/**
 * Behind a PROXY header the client's address is known only once the header is read: placed after the
 * header's handler, this asks {@code admit} when the first bytes after the header arrive (before TLS
 * or HTTP sees them), then steps aside; a refused connection's bytes are released unread. One per
 * connection, on its event loop.
 */
public final class AdmitOnFirstRead extends ChannelInboundHandlerAdapter {
  private final BooleanSupplier admit;

  /** {@code admit}: counts the connection and answers true, or closes it and answers false. */
  public AdmitOnFirstRead(BooleanSupplier admit) {
    this.admit = admit;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ctx.pipeline().remove(this);
    if (admit.getAsBoolean()) {
      ctx.fireChannelRead(msg);
    } else {
      ReferenceCountUtil.release(msg);
    }
  }
}
