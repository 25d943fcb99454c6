package io.playline.gateway.grpc;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.playline.node.edge.ConnectionLimiter;
import io.playline.gateway.session.SessionServices;
import io.playline.gateway.session.StreamSession;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.GatewayGrpc;
import io.playline.proto.v1.ServerFrame;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * {@code playline.v1.Gateway/Connect}: the player stream over gRPC, driving the same {@link
 * StreamSession} as the WebSocket transport. Each stream is pinned to one event loop; inbound
 * messages hop onto it, so the session stays single-threaded.
 */
public final class GatewayGrpcService extends GatewayGrpc.GatewayImplBase {
  private static final Logger log = LoggerFactory.getLogger(GatewayGrpcService.class);
  private final SessionServices services;
  private final ConnectionLimiter limiter;
  private final EventLoopGroup loops;

  public GatewayGrpcService(SessionServices services, ConnectionLimiter limiter, EventLoopGroup loops) {
    this.services = services;
    this.limiter = limiter;
    this.loops = loops;
  }

  /** The interceptor that must wrap this service so per-address limits see the caller's address. */
  public static io.grpc.ServerInterceptor remoteAddressInterceptor() {
    return new RemoteAddressInterceptor();
  }

  @Override
  public StreamObserver<ClientFrame> connect(StreamObserver<ServerFrame> responseObserver) {
    ServerCallStreamObserver<ServerFrame> observer = (ServerCallStreamObserver<ServerFrame>) responseObserver;
    EventExecutor executor = loops.next();
    SocketAddress remote = RemoteAddressInterceptor.REMOTE_ADDRESS.get();
    InetAddress address = remote instanceof InetSocketAddress isa ? isa.getAddress() : null;
    GrpcStreamTransport transport = new GrpcStreamTransport(observer, executor, String.valueOf(remote),
        services.config().maxUnsentBytes(), () -> {
          services.metrics().error(Code.SLOW_CONSUMER);
          log.info("Ending the stream of {}: the client stopped reading (connection.max.unsent.bytes {})", remote,
              services.config().maxUnsentBytes());
        });
    StreamSession session = new StreamSession(transport, services);
    observer.setOnReadyHandler(() -> executor.execute(transport::ready));
    String refused = limiter.admit(address);
    Runnable release = new Runnable() {
      private boolean released;

      @Override
      public void run() {
        if (!released && refused == null) {
          released = true;
          limiter.release(address);
        }
      }
    };
    observer.setOnCancelHandler(() -> executor.execute(() -> {
      transport.markClosed(false);
      session.onTransportClosed();
      release.run();
    }));
    // The server ended the call (an error answer, a drain): the client sends nothing more, so this
    // is where its slot is given back.
    observer.setOnCloseHandler(() -> executor.execute(() -> {
      transport.markClosed(false);
      session.onTransportClosed();
      release.run();
    }));
    executor.execute(() -> {
      session.start();
      if (refused != null) {
        session.onBadFrame(Code.TOO_MANY_CONNECTIONS, refused);
      }
    });
    return new StreamObserver<>() {
      @Override
      public void onNext(ClientFrame frame) {
        executor.execute(() -> session.onFrame(frame));
      }

      @Override
      public void onError(@Nullable Throwable t) {
        executor.execute(() -> {
          transport.markClosed(false);
          session.onTransportClosed();
          release.run();
        });
      }

      @Override
      public void onCompleted() {
        executor.execute(() -> {
          transport.markClosed(true);
          session.onTransportClosed();
          release.run();
        });
      }
    };
  }
}
