package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.playline.testing.Frames;
import io.playline.testing.GrpcPlayerClient;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * IPv6 on the player ports: every address of one /64 is one address for the per-address budgets
 * (a phone or a home holds a whole /64), also when a trusted balancer names them in PROXY v2
 * headers; and a node bound to {@code ::} serves players on {@code ::1}.
 */
@ExtendWith(RealRedisExtension.class)
class Ipv6AddressTest {
  private TestGateway gateway;

  @AfterEach
  void stop() {
    if (gateway != null) {
      gateway.close();
    }
  }

  /** A PROXY v2 header: TCP over IPv6 from {@code source} to ::1. */
  private static byte[] v2(byte[] source) {
    ByteBuffer b = ByteBuffer.allocate(16 + 36);
    b.put(new byte[] {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A});
    b.put((byte) 0x21).put((byte) 0x21).putShort((short) 36); // v2 PROXY, TCP over IPv6, 36 address bytes
    byte[] destination = new byte[16];
    destination[15] = 1;
    b.put(source).put(destination).putShort((short) 40000).putShort((short) 8080);
    return b.array();
  }

  /** The {@code i}-th address inside 2001:db8:1:2::/64, its interface id spread over all 64 bits. */
  private static byte[] inSlash64(long i) {
    ByteBuffer b = ByteBuffer.allocate(16);
    b.putShort((short) 0x2001).putShort((short) 0x0db8).putShort((short) 1).putShort((short) 2);
    b.putLong(i * 0x9E3779B97F4A7C15L + 1);
    return b.array();
  }

  @Test
  void tenThousandAddressesOfOneSlash64ShareOneNewConnectionBudget(RedisNamespace ns) throws Exception {
    gateway = new TestGateway(ns, Map.of("proxy.protocol", "true", "connection.max.new.per.address.per.second", "1",
        "connection.max.new.per.address.burst", "5", "handshake.timeout", "1s"));
    int port = gateway.server.wsAddress().getPort();
    int sent = 10_000;
    long start = System.nanoTime();
    for (int i = 0; i < sent; i++) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        OutputStream out = s.getOutputStream();
        out.write(v2(inSlash64(i)));
        out.write(RawWebSocket.upgradeRequest());
        out.flush();
      }
    }
    // At most the burst plus a token a second (until the node has read them all) were let in freely;
    // every other one was admitted on probation (it must authenticate in time) as one address's.
    // The waits are long because a loaded 2-core machine may take tens of seconds to read 10 000
    // connections: they end as soon as the condition holds.
    await().atMost(Duration.ofSeconds(90)).untilAsserted(() ->
        assertThat(probation()).isGreaterThanOrEqualTo(sent - 5 - 1 - TimeUnit.NANOSECONDS.toSeconds(
            System.nanoTime() - start)));
    // Another /64 behind the same balancer has its own budget: admitted freely.
    await().atMost(Duration.ofSeconds(90)).until(() -> gateway.gauge("playline.connections.unproven") == 0);
    double before = probation();
    byte[] other = inSlash64(1);
    other[7] = 3;
    try (RawWebSocket c = new RawWebSocket(port, 0).raw(v2(other))) {
      assertThat(c.upgrade()).startsWith("HTTP/1.1 101");
    }
    assertThat(probation()).isEqualTo(before);
  }

  private double probation() {
    return gateway.counter("playline.connections.probation", "transport", "ws", "reason", "rate");
  }

  @Test
  void aNodeBoundToTheIpv6WildcardServesPlayersOnIpv6Loopback(RedisNamespace ns) throws Exception {
    gateway = new TestGateway(ns, Map.of("bind.host", "::"));
    InetAddress loopback6 = InetAddress.getByName("::1");
    Socket s = new Socket();
    s.connect(new InetSocketAddress(loopback6, gateway.server.wsAddress().getPort()), 5_000);
    try (RawWebSocket ws = new RawWebSocket(s).upgraded()) {
      ws.send(Frames.auth(1, TestGateway.token(71_001)));
      assertThat(ws.next().hasAuthOk()).isTrue();
    }
    ManagedChannel channel = NettyChannelBuilder.forAddress(new InetSocketAddress(loopback6,
        gateway.server.grpcAddress().getPort())).usePlaintext().build();
    try (GrpcPlayerClient grpc = GrpcPlayerClient.on(channel)) {
      grpc.send(Frames.auth(1, TestGateway.token(71_002)));
      assertThat(grpc.next().hasAuthOk()).isTrue();
    } finally {
      channel.shutdownNow();
    }
  }
}
