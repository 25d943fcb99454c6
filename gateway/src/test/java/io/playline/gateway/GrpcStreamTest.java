package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import io.playline.testing.GrpcPlayerClient;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealRedisExtension.class)
class GrpcStreamTest {
  static TestGateway gateway;

  @BeforeAll
  static void start(RedisNamespace ns) {
    gateway = new TestGateway(ns, Map.of());
  }

  @AfterAll
  static void stop() {
    gateway.close();
  }

  @Test
  void validTokenGetsAuthOk() throws Exception {
    GrpcPlayerClient stream = GrpcPlayerClient.connect(gateway.server.grpcAddress().getPort());
    stream.send(Frames.auth(3, TestGateway.token(99)));
    ServerFrame ok = stream.next();
    assertThat(ok.getSeq()).isEqualTo(3);
    assertThat(ok.getAuthOk().getUid()).isEqualTo(99);
    stream.complete();
    assertThat(stream.awaitEnd().getCode()).isEqualTo(Status.Code.OK);
  }

  @Test
  void heartbeatOverGrpcIsWrittenToRedisThenAcked() throws Exception {
    GrpcPlayerClient stream = GrpcPlayerClient.connect(gateway.server.grpcAddress().getPort());
    stream.send(Frames.auth(1, TestGateway.token(4242)));
    assertThat(stream.next().hasAuthOk()).isTrue();
    long now = System.currentTimeMillis();
    stream.send(Frames.heartbeat(2, Frames.event(77, 3_000, now)));
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
    stream.send(Frames.auth(1, "not-a-jwt"));
    assertThat(stream.next().getError().getCode()).isEqualTo(Code.UNAUTHENTICATED);
    assertThat(stream.awaitEnd().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
  }

  @Test
  void oversizedMessageEndsTheStreamResourceExhausted() throws Exception {
    GrpcPlayerClient stream = GrpcPlayerClient.connect(gateway.server.grpcAddress().getPort());
    stream.send(Frames.auth(1, "x".repeat(gateway.config.maxFrameBytes() + 10)));
    assertThat(stream.awaitEnd().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }
}
