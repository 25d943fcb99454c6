package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealRedisExtension.class)
class DrainTest {
  private static WsPlayerClient authed(TestGateway gateway, long uid) throws Exception {
    WsPlayerClient c = gateway.ws();
    c.send(Frames.auth(1, TestGateway.token(uid), "d" + uid));
    assertThat(c.next().hasAuthOk()).isTrue();
    return c;
  }

  @Test
  void shutdownAsksPlayersToReconnectThenClosesWhoStayed(RedisNamespace ns) throws Exception {
    TestGateway gateway = new TestGateway(ns, Map.of("drain.grace", "2s", "drain.reconnect.spread", "100ms"));
    WsPlayerClient mover = authed(gateway, 501);
    WsPlayerClient stayer = authed(gateway, 502);
    CompletableFuture<Void> closed = CompletableFuture.runAsync(gateway::close);

    ServerFrame reconnect = mover.next();
    assertThat(reconnect.getSeq()).isZero();
    assertThat(reconnect.getReconnect().getAfterMs()).isBetween(0, 100);
    mover.close(); // a well-behaved client leaves for another node

    assertThat(stayer.next().hasReconnect()).isTrue();
    ServerFrame error = stayer.next();
    assertThat(error.getError().getCode()).isEqualTo(Code.DRAINING);
    assertThat(stayer.awaitClose().code()).isEqualTo(4000 + Code.DRAINING.getNumber());
    closed.get(30, TimeUnit.SECONDS);
    stayer.close();
  }
}
