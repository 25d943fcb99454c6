package io.playline.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.bench.heartbeats.baseline.EchoServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lean WebSocket client against the bare echo server: connects from 127.0.0.x, paces, matches acks. */
class EchoLoadTest {
  @Test
  void everyOfferedHeartbeatComesBackAsAnAck() throws Exception {
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0), 1)) {
      LoadSpec spec = new LoadSpec("ws", List.of(URI.create("ws://127.0.0.1:" + echo.port() + "/v1/stream")), 0, 20,
          10, 2, "0123456789abcdef0123456789abcdef", 1, LoadSpec.FlagMode.TODAY, ZoneId.of("UTC"), 1, 2, 1000, 1, 0, 0);
      try (LoadGenerator g = LoadGenerator.start(spec)) {
        await().atMost(Duration.ofSeconds(10)).until(() -> g.snapshot().open() == 20);
        g.setRate(200, Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> g.snapshot().acked() >= 100);
        LoadSnapshot s = g.snapshot();
        assertThat(s.acked()).isGreaterThanOrEqualTo(100);
        assertThat(s.errorTotal()).isZero();
        assertThat(s.connectFailures()).isZero();
      }
    }
  }
}
