package io.playline.gateway;

import static io.playline.gateway.HandshakeTimeoutTest.closedByServer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.testing.Frames;
import io.playline.testing.GrpcPlayerClient;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code connection.max.unproven.per.address} on a real node: connections of one address that have
 * neither finished a WebSocket upgrade nor opened a gRPC stream are capped across both player ports
 * (past it a new one is closed at accept, {@code reason=unproven}); a connection that proves itself
 * gives its place back at once, and so does one that closes.
 */
@ExtendWith(RealRedisExtension.class)
class UnprovenConnectionsTest {
  private TestGateway gateway;

  @BeforeEach
  void start(RedisNamespace ns) {
    gateway = new TestGateway(ns, Map.of("connection.max.unproven.per.address", "2", "handshake.timeout", "1m",
        "grpc.first.stream.timeout", "1m"));
  }

  @AfterEach
  void stop() {
    gateway.close();
  }

  private double unproven() {
    return gateway.registry.get("playline.connections.unproven").gauge().value();
  }

  private double refused(String transport) {
    return gateway.counter("playline.connections.refused", "transport", transport, "reason", "unproven");
  }

  /** A TCP connection that sends nothing, once the node counted it (accepts race on different loops). */
  private Socket silent(int port, int unprovenAfter) throws Exception {
    Socket s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    await().atMost(Duration.ofSeconds(5)).until(() -> unproven() == unprovenAfter);
    return s;
  }

  @Test
  void silentConnectionsOfOneAddressAreCappedAcrossBothPortsAndAnUpgradeGivesItsPlaceBack() throws Exception {
    int ws = gateway.server.wsAddress().getPort();
    int grpc = gateway.server.grpcAddress().getPort();
    Socket first = silent(ws, 1);
    try (Socket second = silent(grpc, 2)) {
      try (Socket overWs = new Socket("127.0.0.1", ws); Socket overGrpc = new Socket("127.0.0.1", grpc)) {
        await().atMost(Duration.ofSeconds(5)).until(() -> closedByServer(overWs) && closedByServer(overGrpc));
      }
      assertThat(refused("ws")).isEqualTo(1);
      assertThat(refused("grpc")).isEqualTo(1);
      assertThat(closedByServer(first)).isFalse();
      assertThat(closedByServer(second)).isFalse();
      first.close();
      await().atMost(Duration.ofSeconds(5)).until(() -> unproven() == 1);
      // An upgrade takes the freed place and gives it back once done: the next silent one fits.
      try (RawWebSocket player = new RawWebSocket(ws, 0)) {
        assertThat(player.upgrade()).startsWith("HTTP/1.1 101");
        await().atMost(Duration.ofSeconds(5)).until(() -> unproven() == 1);
        try (Socket third = silent(ws, 2)) {
          assertThat(closedByServer(third)).isFalse();
        }
      }
    } finally {
      first.close();
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> unproven() == 0);
  }

  @Test
  void aGrpcConnectionIsUnprovenUntilItsFirstStream() throws Exception {
    int grpc = gateway.server.grpcAddress().getPort();
    try (Socket silent = silent(grpc, 1); GrpcPlayerClient player = GrpcPlayerClient.connect(grpc)) {
      player.send(Frames.auth(1, TestGateway.token(31_001)));
      assertThat(player.next().hasAuthOk()).isTrue();
      await().atMost(Duration.ofSeconds(5)).until(() -> unproven() == 1);
      try (Socket second = silent(grpc, 2); Socket over = new Socket("127.0.0.1", grpc)) {
        await().atMost(Duration.ofSeconds(5)).until(() -> closedByServer(over));
        assertThat(closedByServer(second)).isFalse();
      }
      assertThat(refused("grpc")).isEqualTo(1);
      assertThat(closedByServer(silent)).isFalse();
    }
  }
}
