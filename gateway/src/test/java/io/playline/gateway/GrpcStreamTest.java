package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.ServerFrame;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import io.playline.testing.GrpcPlayerClient;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;

@ExtendWith(RealRedisExtension.class)
class GrpcStreamTest {
  static TestGateway gateway;
  static ManagedChannel apiChannel;

  @BeforeAll
  static void start(RedisNamespace ns) {
    gateway = new TestGateway(ns, Map.of());
    apiChannel = NettyChannelBuilder.forAddress("127.0.0.1", gateway.server.apiAddress().getPort()).usePlaintext().build();
  }

  @AfterAll
  static void stop() throws InterruptedException {
    apiChannel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    gateway.close();
  }

  @Test
  void validTokenGetsAuthOk() throws Exception {
    GrpcPlayerClient stream = GrpcPlayerClient.connect(gateway.server.grpcAddress().getPort());
    stream.send(WebSocketStreamTest.auth(3, TestGateway.token(99)));
    ServerFrame ok = stream.next();
    assertThat(ok.getSeq()).isEqualTo(3);
    assertThat(ok.getAuthOk().getUid()).isEqualTo(99);
    stream.complete();
    assertThat(stream.awaitEnd().getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  void heartbeatOverGrpcIsWrittenToRedisThenAcked() throws Exception {
    GrpcPlayerClient stream = GrpcPlayerClient.connect(gateway.server.grpcAddress().getPort());
    stream.send(WebSocketStreamTest.auth(1, TestGateway.token(4242)));
    assertThat(stream.next().hasAuthOk()).isTrue();
    long now = System.currentTimeMillis();
    stream.send(HeartbeatStreamTest.heartbeat(2, "", HeartbeatStreamTest.event(77, 3_000, now)));
    ServerFrame ack = stream.next();
    assertThat(ack.getSeq()).isEqualTo(2);
    assertThat(ack.getHeartbeatAck().getFirstViewList()).containsExactly(true);
    byte[] stored = gateway.redis.shared()
        .hget(gateway.keys.records(4242), io.playline.core.store.RedisKeys.member(io.playline.proto.v1.Business.VIDEO, 77))
        .get();
    assertThat(io.playline.proto.v1.HistoryRecord.parseFrom(stored).getProgressMs()).isEqualTo(3_000);
    stream.complete();
    assertThat(stream.awaitEnd().getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  void badTokenEndsTheStreamUnauthenticated() throws Exception {
    GrpcPlayerClient stream = GrpcPlayerClient.connect(gateway.server.grpcAddress().getPort());
    stream.send(WebSocketStreamTest.auth(1, "not-a-jwt"));
    assertThat(stream.next().getError().getCode()).isEqualTo(Code.UNAUTHENTICATED);
    assertThat(stream.awaitEnd().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
  }

  @Test
  void oversizedMessageEndsTheStreamResourceExhausted() throws Exception {
    GrpcPlayerClient stream = GrpcPlayerClient.connect(gateway.server.grpcAddress().getPort());
    stream.send(WebSocketStreamTest.auth(1, "x".repeat(gateway.config.maxFrameBytes() + 10)));
    assertThat(stream.awaitEnd().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void internalApiServesReflection() throws Exception {
    java.util.concurrent.CompletableFuture<java.util.List<String>> services = new java.util.concurrent.CompletableFuture<>();
    var requests = io.grpc.reflection.v1.ServerReflectionGrpc.newStub(apiChannel).serverReflectionInfo(
        new io.grpc.stub.StreamObserver<io.grpc.reflection.v1.ServerReflectionResponse>() {
          @Override
          public void onNext(io.grpc.reflection.v1.ServerReflectionResponse r) {
            services.complete(r.getListServicesResponse().getServiceList().stream()
                .map(io.grpc.reflection.v1.ServiceResponse::getName).toList());
          }

          @Override
          public void onError(Throwable t) {
            services.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {}
        });
    requests.onNext(io.grpc.reflection.v1.ServerReflectionRequest.newBuilder().setListServices("*").build());
    assertThat(services.get(10, TimeUnit.SECONDS)).contains("grpc.health.v1.Health");
    requests.onCompleted();
  }

  @Test
  void internalApiServesHealth() {
    var response = HealthGrpc.newBlockingStub(apiChannel).check(HealthCheckRequest.getDefaultInstance());
    assertThat(response.getStatus()).isEqualTo(ServingStatus.SERVING);
  }
}
