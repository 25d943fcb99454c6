package io.playline.core.store;

import io.lettuce.core.resource.EventLoopGroupProvider;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Gives Lettuce one event loop that somebody else owns (the gateway's), so every Redis
 * connection of the process does its I/O there: a heartbeat read, batched, written to Redis and
 * acked on that loop never changes thread. A Netty {@link EventLoop} is a group of itself, so
 * every channel Lettuce bootstraps lands on it. Lettuce never shuts it down; its owner does,
 * after the Redis client is closed.
 */
final class BorrowedEventLoop implements EventLoopGroupProvider {
  private final EventLoop loop;

  BorrowedEventLoop(EventLoop loop) {
    this.loop = loop;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T extends EventLoopGroup> T allocate(Class<T> type) {
    // Lettuce asks for its transport's group class (EpollEventLoopGroup / NioEventLoopGroup) but
    // only ever uses the result as an EventLoopGroup.
    return (T) loop;
  }

  @Override
  public int threadPoolSize() {
    return 1;
  }

  @Override
  public Future<Boolean> release(EventExecutorGroup group, long quietPeriod, long timeout, TimeUnit unit) {
    return ImmediateEventExecutor.INSTANCE.newSucceededFuture(Boolean.TRUE);
  }

  @Override
  public Future<Boolean> shutdown(long quietPeriod, long timeout, TimeUnit unit) {
    return ImmediateEventExecutor.INSTANCE.newSucceededFuture(Boolean.TRUE);
  }
}
