package io.playline.gateway;

import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * How Playline builds and stops its gRPC servers (player stream, internal API): on the node's
 * event loops, with a direct executor (handlers never block), a bounded inbound message and
 * keep-alives clients may send. Stateless.
 */
public final class GrpcServers {
  private GrpcServers() {}

  /** A server builder bound to {@code address} on {@code loops}, accepting messages up to {@code maxMessageBytes}. */
  public static NettyServerBuilder builder(EventLoops loops, InetSocketAddress address, int maxMessageBytes) {
    return NettyServerBuilder.forAddress(address)
        .channelType(loops.serverChannelType())
        .bossEventLoopGroup(loops.boss())
        .workerEventLoopGroup(loops.workers())
        .directExecutor()
        .maxInboundMessageSize(maxMessageBytes)
        .permitKeepAliveTime(10, TimeUnit.SECONDS)
        .permitKeepAliveWithoutCalls(true);
  }

  /** Stops accepting, lets calls finish for up to 5 s, then cancels the rest (bounded). */
  public static void stop(Server server) throws InterruptedException {
    server.shutdown();
    if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
      server.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
    }
  }
}
