package io.playline.client.internal;

import io.netty.handler.ssl.SslContext;
import org.jspecify.annotations.Nullable;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.lite.ProtoLiteUtils;
import io.grpc.stub.ClientCalls;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.playline.proto.lite.v1.ClientFrame;
import io.playline.proto.lite.v1.ServerFrame;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The player stream over gRPC ({@code playline.v1.Gateway/Connect}): one {@link ManagedChannel}
 * per connection, its I/O and its callbacks on the client's event loop, shut down as soon as its
 * stream ends. A fresh channel per connection means a reconnect follows the session's own backoff
 * (not a cached transport failure) and nothing of a dead connection lingers.
 *
 * <p>{@link #open} is called on the loop; {@link #shutdown} off it.
 */
public final class GrpcTransport implements Transport {
  private static final ClientLog log = ClientLog.of(GrpcTransport.class);
  /** Largest server message accepted. */
  static final int MAX_FRAME_BYTES = 1 << 20;
  /** {@code rpc Connect(stream ClientFrame) returns (stream ServerFrame)} of {@code playline.v1.Gateway}. */
  static final MethodDescriptor<ClientFrame, ServerFrame> CONNECT =
      MethodDescriptor.<ClientFrame, ServerFrame>newBuilder()
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName(MethodDescriptor.generateFullMethodName("playline.v1.Gateway", "Connect"))
          .setRequestMarshaller(ProtoLiteUtils.marshaller(ClientFrame.getDefaultInstance()))
          .setResponseMarshaller(ProtoLiteUtils.marshaller(ServerFrame.getDefaultInstance()))
          .build();

  private final EventLoop loop;
  private final String host;
  private final int port;
  private final Set<ManagedChannel> channels = ConcurrentHashMap.newKeySet();
  private final @Nullable SslContext tls;

  /**
   * @param loop the client's event loop (a NIO loop): every channel's I/O and callbacks run on it
   * @param tls TLS with this client context (gRPC checks the server's name), or null for plain text
   */
  public GrpcTransport(EventLoop loop, String host, int port, @Nullable SslContext tls) {
    this.loop = loop;
    this.host = host;
    this.port = port;
    this.tls = tls;
  }

  @Override
  public Connection open(Listener listener) {
    channels.removeIf(ManagedChannel::isTerminated);
    NettyChannelBuilder builder = NettyChannelBuilder.forAddress(host, port);
    if (tls == null) {
      builder.usePlaintext();
    } else {
      builder.sslContext(tls);
    }
    ManagedChannel channel = builder
        .eventLoopGroup(loop)
        .channelType(NioSocketChannel.class)
        .executor(loop)
        .maxInboundMessageSize(MAX_FRAME_BYTES)
        .build();
    channels.add(channel);
    GrpcStream stream = new GrpcStream(listener, loop, channel::shutdownNow);
    ClientCalls.asyncBidiStreamingCall(channel.newCall(CONNECT, CallOptions.DEFAULT), stream);
    // gRPC buffers frames until the stream is up, so the connection is usable at once; hop so the
    // session never hears about a connection from inside open().
    loop.execute(stream::started);
    return stream;
  }

  /** Channels not yet terminated (a channel terminates shortly after its stream ends). */
  @Override
  public int liveConnections() {
    channels.removeIf(ManagedChannel::isTerminated);
    return channels.size();
  }

  @Override
  public void shutdown(long timeoutMs) {
    long deadline = SystemClock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    for (ManagedChannel channel : channels) {
      channel.shutdownNow();
    }
    if (timeoutMs <= 0) {
      return; // called on the loop: the channels terminate once it runs again
    }
    for (ManagedChannel channel : channels) {
      long left = deadline - SystemClock.nanoTime();
      try {
        if (left <= 0 || !channel.awaitTermination(left, TimeUnit.NANOSECONDS)) {
          log.warn("A gRPC channel to {}:{} did not terminate within {} ms", host, port, timeoutMs);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    channels.clear();
  }
}
