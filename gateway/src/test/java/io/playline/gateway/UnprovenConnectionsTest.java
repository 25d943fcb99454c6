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
 * (past it the address's oldest such connection is closed to make room for the new one, {@code
 * reason=unproven}: strangers holding them cannot keep the address's players out); a connection
 * that proves itself gives its place back at once, and so does one that closes.
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
  void silentConnectionsOfOneAddressAreCappedAcrossBothPortsTheOldestGivingWayToANewcomer() throws Exception {
    int ws = gateway.server.wsAddress().getPort();
    int grpc = gateway.server.grpcAddress().getPort();
    try (Socket first = silent(ws, 1); Socket second = silent(grpc, 2)) {
      // A third from the address, on the other port: the oldest (first) is closed to make room.
      try (Socket third = new Socket("127.0.0.1", grpc)) {
        await().atMost(Duration.ofSeconds(5)).until(() -> closedByServer(first));
        assertThat(refused("grpc")).isEqualTo(1);
        assertThat(closedByServer(second)).isFalse();
        assertThat(closedByServer(third)).isFalse();
        assertThat(unproven()).isEqualTo(2);
        // A player's upgrade at the cap: second, now the oldest, gives way; upgraded, the player gives
        // its own place back at once.
        try (RawWebSocket player = new RawWebSocket(ws, 0)) {
          assertThat(player.upgrade()).startsWith("HTTP/1.1 101");
          await().atMost(Duration.ofSeconds(5)).until(() -> closedByServer(second));
          await().atMost(Duration.ofSeconds(5)).until(() -> unproven() == 1);
          assertThat(refused("ws")).isEqualTo(1);
          assertThat(closedByServer(third)).isFalse();
        }
      }
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
        // The player's connection is proven: the oldest unproven one (silent) gives way, not it.
        await().atMost(Duration.ofSeconds(5)).until(() -> closedByServer(silent));
        assertThat(closedByServer(second)).isFalse();
        assertThat(closedByServer(over)).isFalse();
      }
      assertThat(refused("grpc")).isEqualTo(1);
      player.send(Frames.heartbeat(2, Frames.event(1, 1_000, System.currentTimeMillis())));
      assertThat(player.next().hasHeartbeatAck()).as("the player's stream is served still").isTrue();
    }
  }
}
