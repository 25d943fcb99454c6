package io.playline.client;

import static io.playline.client.internal.Checks.checkArgument;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoop;
import io.playline.client.internal.SystemClock;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Settings of a {@link PlaylineClient}; obtain one from {@link PlaylineClient#builder()}. The
 * settings every client has are {@link AbstractPlaylineClientBuilder}'s; this one adds the wire
 * (WebSocket or gRPC) and the Netty event loop group. Not thread-safe; build on one thread.
 */
public final class PlaylineClientBuilder extends AbstractPlaylineClientBuilder<PlaylineClientBuilder> {
  private TransportKind transport = TransportKind.WEBSOCKET;
  private @Nullable EventLoopGroup eventLoopGroup;

  PlaylineClientBuilder() {}

  @Override
  protected PlaylineClientBuilder self() {
    return this;
  }

  /** WebSocket (default) or gRPC; the same frames and behaviour either way. */
  public PlaylineClientBuilder transport(TransportKind transport) {
    this.transport = Objects.requireNonNull(transport, "transport");
    return this;
  }

  /**
   * Runs the client on one loop of {@code group} (a {@code NioEventLoopGroup}), e.g. to share an
   * app's group among clients; the client does not shut it down. By default each client has a
   * one-thread group of its own, shut down by {@link PlaylineClient#close()}.
   */
  public PlaylineClientBuilder eventLoopGroup(EventLoopGroup group) {
    this.eventLoopGroup = Objects.requireNonNull(group, "eventLoopGroup");
    return this;
  }

  @Override
  public PlaylineClient build() {
    EventLoopGroup group = eventLoopGroup;
    checkArgument(group == null || group.next() instanceof NioEventLoop,
        "eventLoopGroup: %s (expected: a NioEventLoopGroup)", group);
    checkArgument(group == null || !group.isShuttingDown(), "eventLoopGroup: %s (expected: not shut down)", group);
    return new PlaylineClient(config(SystemClock.wall()), transport, group);
  }
}
