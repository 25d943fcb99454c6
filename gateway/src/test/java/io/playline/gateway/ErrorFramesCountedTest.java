package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import io.playline.testing.GrpcPlayerClient;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code playline_errors_total} counts every error frame a player is sent, once, whichever part of
 * the session sent it: the heartbeat handler, the session's own refusals, and an error that closes
 * the connection — on both transports.
 */
@ExtendWith(RealRedisExtension.class)
class ErrorFramesCountedTest {
  private TestGateway gateway;

  @BeforeEach
  void start(RedisNamespace ns) {
    gateway = new TestGateway(ns, Map.of());
  }

  @AfterEach
  void stop() {
    gateway.close();
  }

  private double errors(Code code) {
    return gateway.counter("playline.errors", "code", code.name());
  }

  @Test
  void everyErrorFrameIsCountedOnceByItsCode() throws Exception {
    try (WsPlayerClient player = WsPlayerClient.connect(gateway.server.wsAddress().getPort())) {
      player.send(Frames.auth(1, TestGateway.token(4_101)));
      assertThat(player.next().hasAuthOk()).isTrue();
      // The heartbeat handler's refusal: an event with no item.
      player.send(Frames.heartbeat(2, Frames.event(0, 1_000, System.currentTimeMillis())));
      assertThat(player.next().getError().getCode()).isEqualTo(Code.INVALID_ARGUMENT);
      // The session's own: this node serves no queries.
      player.send(Frames.progressQuery(3, Frames.video(1)));
      assertThat(player.next().getError().getCode()).isEqualTo(Code.UNAVAILABLE);
      // An error that closes: a refresh without a token.
      player.send(Frames.refresh(4, ""));
      ServerFrame last = player.next();
      assertThat(last.getError().getCode()).isEqualTo(Code.UNAUTHENTICATED);
      player.closed.get(10, TimeUnit.SECONDS);
    }
    assertThat(errors(Code.INVALID_ARGUMENT)).isEqualTo(1);
    assertThat(errors(Code.UNAVAILABLE)).isEqualTo(1);
    assertThat(errors(Code.UNAUTHENTICATED)).isEqualTo(1);

    try (GrpcPlayerClient player = GrpcPlayerClient.connect(gateway.server.grpcAddress().getPort())) {
      player.send(Frames.auth(1, TestGateway.token(4_102)));
      assertThat(player.next().hasAuthOk()).isTrue();
      player.send(Frames.heartbeat(2, Frames.event(0, 1_000, System.currentTimeMillis())));
      assertThat(player.next().getError().getCode()).isEqualTo(Code.INVALID_ARGUMENT);
      player.send(Frames.refresh(3, ""));
      assertThat(player.next().getError().getCode()).isEqualTo(Code.UNAUTHENTICATED);
      player.end.get(10, TimeUnit.SECONDS);
    }
    assertThat(errors(Code.UNAUTHENTICATED)).isEqualTo(2);
    assertThat(errors(Code.INVALID_ARGUMENT)).isEqualTo(2);
  }

  @Test
  void theDrainsClosingErrorIsCountedOncePerConnectionItReaches(RedisNamespace ns) throws Exception {
    gateway.close();
    gateway = new TestGateway(ns, Map.of("drain.grace", "0s"));
    try (WsPlayerClient player = WsPlayerClient.connect(gateway.server.wsAddress().getPort())) {
      player.send(Frames.auth(1, TestGateway.token(4_201)));
      assertThat(player.next().hasAuthOk()).isTrue();
      // A connection that leaves before the drain: nothing is sent to it, nothing counted.
      try (WsPlayerClient gone = WsPlayerClient.connect(gateway.server.wsAddress().getPort())) {
        gone.send(Frames.auth(1, TestGateway.token(4_202)));
        assertThat(gone.next().hasAuthOk()).isTrue();
      }
      await().atMost(Duration.ofSeconds(5))
          .until(() -> gateway.registry.get("playline.connections.open").gauge().value() == 1);

      gateway.close();

      ServerFrame frame;
      do {
        frame = player.next();
      } while (!frame.hasError());
      assertThat(frame.getError().getCode()).isEqualTo(Code.DRAINING);
      player.closed.get(10, TimeUnit.SECONDS);
    }
    assertThat(errors(Code.DRAINING)).isEqualTo(1);
  }
}
