package io.playline.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.proto.lite.v1.Business;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The hooks a mobile app calls: a network change moves the connection to the new network at once
 * (resuming the session, losing nothing) and cuts a reconnect's backoff short; going to the
 * background sends what waits.
 */
@ExtendWith(RealRedisExtension.class)
class LifecycleTest {
  @ParameterizedTest
  @EnumSource(Wire.class)
  void aNetworkChangeReconnectsAtOnceAndBackgroundFlushes(Wire wire, RedisNamespace ns) throws Exception {
    long uid = 1_201 + wire.ordinal();
    Recorder events = new Recorder();
    // A backoff of up to ten minutes: without the hook, the client would not be back within the test.
    try (GatewayFixture gateway = new GatewayFixture(ns);
        AbstractPlaylineClient client = gateway.client(wire, uid, "phone")
            .backoff(Duration.ofMinutes(10), Duration.ofMinutes(10), Integer.MAX_VALUE).listener(events).build()) {
      events.awaitCount(ConnectionState.CONNECTED, 1);
      client.report(Business.VIDEO, 1, 1_000, 600_000);
      client.onNetworkChanged(); // connected: the old connection may be dead on the old network
      events.awaitCount(ConnectionState.CONNECTED, 2);
      client.flush().get(10, TimeUnit.SECONDS);
      assertThat(client.stats().sessionResumes()).isEqualTo(1);

      int ws = gateway.node().server.wsAddress().getPort();
      int grpc = gateway.node().server.grpcAddress().getPort();
      gateway.stop();
      events.awaitCount(ConnectionState.RECONNECTING, 2);
      gateway.start(ws, grpc);
      client.onNetworkChanged(); // waiting out a backoff: try now
      events.awaitCount(ConnectionState.CONNECTED, 3);

      client.report(Business.VIDEO, 2, 2_000, 600_000);
      client.onBackground().get(10, TimeUnit.SECONDS);
      assertThat(gateway.stored(uid, Business.VIDEO, 1).getProgressMs()).isEqualTo(1_000);
      assertThat(gateway.stored(uid, Business.VIDEO, 2).getProgressMs()).isEqualTo(2_000);
      assertThat(gateway.tokenCalls).hasValue(1);
    }
  }
}
