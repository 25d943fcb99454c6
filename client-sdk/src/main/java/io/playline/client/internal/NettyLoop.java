package io.playline.client.internal;

import io.netty.channel.EventLoop;
import java.util.concurrent.TimeUnit;

/** {@link Loop} on a Netty {@link EventLoop}. Thread-safe, as the event loop is. */
public final class NettyLoop implements Loop {
  private final EventLoop loop;

  public NettyLoop(EventLoop loop) {
    this.loop = loop;
  }

  @Override
  public boolean inLoop() {
    return loop.inEventLoop();
  }

  @Override
  public void execute(Runnable task) {
    loop.execute(task);
  }

  @Override
  public Scheduled schedule(Runnable task, long delayMs) {
    var future = loop.schedule(task, Math.max(0, delayMs), TimeUnit.MILLISECONDS);
    return () -> future.cancel(false);
  }

  @Override
  public long nowMs() {
    return SystemClock.nowMs();
  }
}
