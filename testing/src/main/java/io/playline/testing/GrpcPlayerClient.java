package io.playline.testing;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.GatewayGrpc;
import io.playline.proto.v1.ServerFrame;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real gRPC player: one {@code Gateway/Connect} stream on its own channel, for tests. Received
 * frames queue up for {@link #next()}; {@link #end} completes with the stream's final status.
 */
public final class GrpcPlayerClient implements StreamObserver<ServerFrame>, AutoCloseable {
  private final ManagedChannel channel;
  private final BlockingQueue<ServerFrame> frames = new LinkedBlockingQueue<>();
  /** The status the server ended the stream with (OK when it completed normally). */
  public final CompletableFuture<Status> end = new CompletableFuture<>();
  private final StreamObserver<ClientFrame> requests;
  private final boolean ownsChannel;

  private GrpcPlayerClient(ManagedChannel channel, boolean ownsChannel) {
    this.channel = channel;
    this.ownsChannel = ownsChannel;
    requests = GatewayGrpc.newStub(channel).connect(this);
  }

  /** Opens a stream to the player gRPC port on loopback, on a channel of its own. */
  public static GrpcPlayerClient connect(int port) {
    return new GrpcPlayerClient(NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build(), true);
  }

  /**
   * Opens a stream to {@code localhost:<port>} over TLS on a channel of its own, trusting the CAs in
   * {@code caPem}, presenting {@code client} (certificate and key) when not null.
   */
  public static GrpcPlayerClient connectTls(int port, java.nio.file.Path caPem, TestCertificates.@org.jspecify.annotations.Nullable Issued client)
      throws javax.net.ssl.SSLException {
    return new GrpcPlayerClient(NettyChannelBuilder.forAddress("localhost", port)
        .sslContext(TestCertificates.grpcClientContext(caPem, client)).build(), true);
  }

  /** Opens a stream on {@code channel}, shared with other streams; {@link #close()} leaves it open. */
  public static GrpcPlayerClient on(ManagedChannel channel) {
    return new GrpcPlayerClient(channel, false);
  }

  public void send(ClientFrame frame) {
    requests.onNext(frame);
  }

  /** Half-closes the stream: the client has nothing more to send. */
  public void complete() {
    requests.onCompleted();
  }

  /** The next frame from the server, failing after 10 s. */
  public ServerFrame next() throws InterruptedException {
    ServerFrame f = frames.poll(10, TimeUnit.SECONDS);
    if (f == null) {
      throw new AssertionError("no frame from the server within 10 s");
    }
    return f;
  }

  /** The next frame from the server, or null when none came within {@code millis}. */
  public @org.jspecify.annotations.Nullable ServerFrame poll(long millis) throws InterruptedException {
    return frames.poll(millis, TimeUnit.MILLISECONDS);
  }

  /** The final status, failing after 10 s. */
  public Status awaitEnd() throws Exception {
    return end.get(10, TimeUnit.SECONDS);
  }

  @Override
  public void onNext(ServerFrame value) {
    frames.add(value);
  }

  @Override
  public void onError(Throwable t) {
    end.complete(Status.fromThrowable(t));
  }

  @Override
  public void onCompleted() {
    end.complete(Status.OK);
  }

  @Override
  public void close() {
    if (!ownsChannel) {
      if (!end.isDone()) {
        requests.onError(Status.CANCELLED.withDescription("client closed").asRuntimeException());
      }
      return;
    }
    try {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
