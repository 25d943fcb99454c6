package io.playline.gateway.ws;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;

/**
 * Stands for a socket that has not yet sent what it was given: keeps what is written (in order) and
 * completes nothing until {@link #complete}, so a close that waits for its frames waits. First in
 * the pipeline; confined to the channel's event loop.
 */
final class HeldWrites extends ChannelOutboundHandlerAdapter {
  final List<Object> written = new ArrayList<>();
  private final List<ChannelPromise> promises = new ArrayList<>();

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    written.add(msg);
    promises.add(promise);
  }

  @Override
  public void flush(ChannelHandlerContext ctx) {
  }

  /** The socket sent it all: every write succeeds. */
  void complete() {
    promises.forEach(ChannelPromise::trySuccess);
    promises.clear();
  }

  /** Releases what was kept. */
  void release() {
    written.forEach(ReferenceCountUtil::release);
    written.clear();
  }
}
