package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.GatewayGrpc;
import io.playline.proto.v1.ServerFrame;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;

@ExtendWith(RealRedisExtension.class)
class GrpcStreamTest {
  static TestGateway gateway;
  static ManagedChannel channel;
  static ManagedChannel apiChannel;

  @BeforeAll
  static void start(RedisNamespace ns) {
    gateway = new TestGateway(ns, Map.of());
    channel = NettyChannelBuilder.forAddress("127.0.0.1", gateway.server.grpcAddress().getPort()).usePlaintext().build();
    apiChannel = NettyChannelBuilder.forAddress("127.0.0.1", gateway.server.apiAddress().getPort()).usePlaintext().build();
  }

  @AfterAll
  static void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    apiChannel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    gateway.close();
  }

  /** One Connect stream with its received frames and final status. */
  static final class Stream implements StreamObserver<ServerFrame> {
    final BlockingQueue<ServerFrame> frames = new LinkedBlockingQueue<>();
    final CompletableFuture<Status> end = new CompletableFuture<>();
    final StreamObserver<ClientFrame> requests;

    Stream() {
      requests = GatewayGrpc.newStub(channel).connect(this);
    }

    ServerFrame next() throws InterruptedException {
      ServerFrame f = frames.poll(10, TimeUnit.SECONDS);
      assertThat(f).as("frame within 10 s").isNotNull();
      return f;
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
  }

  @Test
  void validTokenGetsAuthOk() throws Exception {
    Stream stream = new Stream();
    stream.requests.onNext(WebSocketStreamTest.auth(3, TestGateway.token(99)));
    ServerFrame ok = stream.next();
    assertThat(ok.getSeq()).isEqualTo(3);
    assertThat(ok.getAuthOk().getUid()).isEqualTo(99);
    stream.requests.onCompleted();
    assertThat(stream.end.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  void heartbeatOverGrpcIsWrittenToRedisThenAcked() throws Exception {
    Stream stream = new Stream();
    stream.requests.onNext(WebSocketStreamTest.auth(1, TestGateway.token(4242)));
    assertThat(stream.next().hasAuthOk()).isTrue();
    long now = System.currentTimeMillis();
    stream.requests.onNext(HeartbeatStreamTest.heartbeat(2, "", HeartbeatStreamTest.event(77, 3_000, now)));
    ServerFrame ack = stream.next();
    assertThat(ack.getSeq()).isEqualTo(2);
    assertThat(ack.getHeartbeatAck().getFirstViewList()).containsExactly(true);
    byte[] stored = gateway.redis.shared()
        .hget(gateway.keys.records(4242), io.playline.core.store.RedisKeys.member(io.playline.proto.v1.Business.VIDEO, 77))
        .get();
    assertThat(io.playline.proto.v1.HistoryRecord.parseFrom(stored).getProgressMs()).isEqualTo(3_000);
    stream.requests.onCompleted();
    assertThat(stream.end.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  void badTokenEndsTheStreamUnauthenticated() throws Exception {
    Stream stream = new Stream();
    stream.requests.onNext(WebSocketStreamTest.auth(1, "not-a-jwt"));
    assertThat(stream.next().getError().getCode()).isEqualTo(Code.UNAUTHENTICATED);
    assertThat(stream.end.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
  }

  @Test
  void oversizedMessageEndsTheStreamResourceExhausted() throws Exception {
    Stream stream = new Stream();
    stream.requests.onNext(WebSocketStreamTest.auth(1, "x".repeat(gateway.config.maxFrameBytes() + 10)));
    assertThat(stream.end.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void internalApiServesHealth() {
    var response = HealthGrpc.newBlockingStub(apiChannel).check(HealthCheckRequest.getDefaultInstance());
    assertThat(response.getStatus()).isEqualTo(ServingStatus.SERVING);
  }
}
