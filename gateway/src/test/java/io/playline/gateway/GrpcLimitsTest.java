package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.playline.node.grpc.GrpcLimitsConfig;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import io.playline.testing.GrpcPlayerClient;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The per-connection limits of the gRPC servers ({@link GrpcLimitsConfig}) on the player port. */
@ExtendWith(RealRedisExtension.class)
class GrpcLimitsTest {
  private TestGateway gateway;
  private ManagedChannel channel;

  private ManagedChannel start(RedisNamespace ns, Map<String, String> limits) {
    gateway = new TestGateway(ns, limits);
    channel = NettyChannelBuilder.forAddress("127.0.0.1", gateway.server.grpcAddress().getPort()).usePlaintext()
        .build();
    return channel;
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    gateway.close();
  }

  private static ServerFrame heartbeat(GrpcPlayerClient player, long seq) throws InterruptedException {
    player.send(Frames.keepAlive(seq));
    return player.next();
  }

  @Test
  void aConnectionRunsAtMostItsConcurrentCallsTheRestWait(RedisNamespace ns) throws Exception {
    start(ns, Map.of("grpc.max.concurrent.calls.per.connection", "1"));
    GrpcPlayerClient first = GrpcPlayerClient.on(channel);
    first.send(Frames.auth(1, TestGateway.token(42)));
    assertThat(first.next().hasAuthOk()).isTrue();

    GrpcPlayerClient second = GrpcPlayerClient.on(channel);
    second.send(Frames.auth(1, TestGateway.token(43)));
    // The first stream keeps being served; the second is held by the client until a slot frees.
    assertThat(heartbeat(first, 2).getSeq()).isEqualTo(2);
    assertThat(heartbeat(first, 3).getSeq()).isEqualTo(3);
    assertThat(second.end).isNotDone();
    assertThat(gateway.counter("playline.auth.identity.checks")).isEqualTo(1);

    // The first call ends: the waiting one starts on the same connection.
    first.complete();
    assertThat(first.awaitEnd().isOk()).isTrue();
    assertThat(second.next().hasAuthOk()).isTrue();
    second.close();
  }

  @Test
  void aConnectionWithoutCallsIsClosedAfterMaxConnectionIdle(RedisNamespace ns) throws Exception {
    start(ns, Map.of("grpc.max.connection.idle", "500ms"));
    try (GrpcPlayerClient player = GrpcPlayerClient.on(channel)) {
      player.send(Frames.auth(1, TestGateway.token(42)));
      assertThat(player.next().hasAuthOk()).isTrue();
      assertThat(channel.getState(false)).isEqualTo(ConnectivityState.READY);
      player.complete();
      assertThat(player.awaitEnd().isOk()).isTrue();
    }
    // No call left: the server sends the connection away, and the channel goes idle.
    await().atMost(Duration.ofSeconds(10)).until(() -> channel.getState(false) == ConnectivityState.IDLE);
  }

  @Test
  void anOldConnectionIsSentAwayAndItsCallsEndAfterTheGrace(RedisNamespace ns) throws Exception {
    start(ns, Map.of("grpc.max.connection.age", "1s", "grpc.max.connection.age.grace", "200ms",
        "heartbeat.interval", "1s", "idle.timeout", "30s"));
    GrpcPlayerClient player = GrpcPlayerClient.on(channel);
    player.send(Frames.auth(1, TestGateway.token(42)));
    assertThat(player.next().hasAuthOk()).isTrue();
    Status end = player.end.get(10, TimeUnit.SECONDS);
    assertThat(end.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    // The client reconnects on a new connection.
    try (GrpcPlayerClient again = GrpcPlayerClient.on(channel)) {
      again.send(Frames.auth(1, TestGateway.token(42)));
      assertThat(again.next().hasAuthOk()).isTrue();
    }
  }
}
