package io.playline.bench.load;

import io.grpc.Attributes;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.GatewayGrpc;
import io.playline.proto.v1.ServerFrame;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The gRPC transport of the generator: each player gets its own channel (its own TCP connection,
 * as a real device would) bound to its source address, and one {@code Gateway/Connect} stream on
 * it. Callbacks run directly on the channel's event loop, which is then the player's loop.
 *
 * <p>Thread-safe: {@link #connect} runs on the connector thread, streams on their loops.
 */
final class GrpcLinks {
  private final EventLoopGroup group;
  private final boolean epoll;
  private final Queue<ManagedChannel> channels = new ConcurrentLinkedQueue<>();

  GrpcLinks(EventLoopGroup group, boolean epoll) {
    this.group = group;
    this.epoll = epoll;
  }

  void connect(Player player, InetSocketAddress remote, InetSocketAddress local, String token) {
    ManagedChannel channel = NettyChannelBuilder.forAddress(remote)
        .usePlaintext()
        .eventLoopGroup(group)
        .channelType(epoll ? EpollSocketChannel.class : NioSocketChannel.class, InetSocketAddress.class)
        .localSocketPicker(new NettyChannelBuilder.LocalSocketPicker() {
          @Override
          public SocketAddress createSocketAddress(SocketAddress remoteAddress, Attributes attrs) {
            return local;
          }
        })
        .directExecutor()
        .build();
    channels.add(channel);
    Stream stream = new Stream(player, channel);
    GatewayGrpc.newStub(channel).connect(stream);
    stream.start(token);
  }

  /** Shuts every channel down (bounded). */
  void close() {
    for (ManagedChannel c : channels) {
      c.shutdownNow();
    }
    for (ManagedChannel c : channels) {
      try {
        c.awaitTermination(2, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** One player's stream: inbound frames to the player, the player's frames out. */
  private static final class Stream implements ClientResponseObserver<ClientFrame, ServerFrame>, Player.Link {
    private final Player player;
    private final ManagedChannel channel;
    private final ServerFrames.View view = new ServerFrames.View();
    private @Nullable ClientCallStreamObserver<ClientFrame> requests;
    private volatile boolean done;

    Stream(Player player, ManagedChannel channel) {
      this.player = player;
      this.channel = channel;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<ClientFrame> requestStream) {
      this.requests = requestStream;
    }

    void start(String token) {
      player.onConnected(this, token);
    }

    @Override
    public boolean send(ClientFrame frame) {
      StreamObserver<ClientFrame> r = requests;
      if (r == null || done) {
        return false;
      }
      r.onNext(frame);
      return true;
    }

    @Override
    public void onNext(ServerFrame frame) {
      ServerFrames.fromMessage(frame, view);
      player.onFrame(view);
    }

    @Override
    public void onError(Throwable t) {
      done = true;
      player.onClosed(100 + Status.fromThrowable(t).getCode().value());
      channel.shutdownNow();
    }

    @Override
    public void onCompleted() {
      done = true;
      player.onClosed(0);
      channel.shutdownNow();
    }

    @Override
    public void close() {
      ClientCallStreamObserver<ClientFrame> r = requests;
      if (r != null && !done) {
        r.cancel("bench finished", null);
      }
      channel.shutdownNow();
    }
  }
}
