package io.playline.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.proto.lite.v1.Business;
import io.playline.proto.lite.v1.HistoryRecord;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A client given two gateway nodes: when its node dies for good it moves to the other one by
 * itself, resumes its session there and loses no event.
 */
@ExtendWith(RealRedisExtension.class)
class MultiEndpointTest {
  @ParameterizedTest
  @EnumSource(Wire.class)
  void whenItsNodeDiesTheClientMovesToTheOtherAndLosesNothing(Wire transport, RedisNamespace ns)
      throws Exception {
    long uid = 611;
    Recorder events = new Recorder();
    try (GatewayFixture first = new GatewayFixture(ns); GatewayFixture second = new GatewayFixture(ns);
        AbstractPlaylineClient client = first.client(transport, uid, "tv")
            .addEndpoint("127.0.0.1", second.port(transport)).listener(events).build()) {
      events.awaitCount(ConnectionState.CONNECTED, 1);
      client.report(Business.VIDEO, 1, 1_000, 600_000);
      client.flush().get(10, TimeUnit.SECONDS);
      assertThat(first.node().counter("playline.auth", "result", "ok")).isEqualTo(1);

      first.stop();
      events.awaitCount(ConnectionState.RECONNECTING, 1);
      client.report(Business.VIDEO, 1, 2_000, 600_000); // reported while disconnected
      client.report(Business.VIDEO, 2, 3_000, 600_000);
      events.awaitCount(ConnectionState.CONNECTED, 2);
      client.flush().get(10, TimeUnit.SECONDS);

      HistoryRecord one = second.stored(uid, Business.VIDEO, 1);
      HistoryRecord two = second.stored(uid, Business.VIDEO, 2);
      assertThat(one).isNotNull();
      assertThat(one.getProgressMs()).isEqualTo(2_000);
      assertThat(two).isNotNull();
      assertThat(two.getProgressMs()).isEqualTo(3_000);
      // The session moved with the client: no second identity check, no second token.
      assertThat(second.node().counter("playline.auth", "result", "resumed")).isEqualTo(1);
      assertThat(first.tokenCalls.get() + second.tokenCalls.get()).isEqualTo(1);
    }
  }
}
