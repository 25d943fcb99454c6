package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import io.playline.testing.GrpcPlayerClient;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.TestCertificates;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * proxy.protocol: behind a load balancer every connection comes from the balancer's address; the
 * PROXY header (v1 or v2) carries the player's, and connection.max.per.address counts that one.
 */
@ExtendWith(RealRedisExtension.class)
class ProxyProtocolTest {
  static TestGateway gateway;

  @BeforeAll
  static void start(RedisNamespace ns) {
    gateway = new TestGateway(ns, Map.of("proxy.protocol", "true", "connection.max.per.address", "1"));
  }

  @AfterAll
  static void stop() {
    gateway.close();
  }

  static byte[] v1(String source) {
    return ("PROXY TCP4 " + source + " 127.0.0.1 40000 8080\r\n").getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] v2(byte[] source) {
    ByteBuffer b = ByteBuffer.allocate(16 + 12);
    b.put(new byte[] {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A});
    b.put((byte) 0x21).put((byte) 0x11).putShort((short) 12); // v2 PROXY, TCP over IPv4, 12 address bytes
    b.put(source).put(new byte[] {127, 0, 0, 1}).putShort((short) 40000).putShort((short) 8080);
    return b.array();
  }

  private static RawWebSocket player(byte[] header) throws IOException {
    return new RawWebSocket(gateway.server.wsAddress().getPort(), 0).raw(header).upgraded();
  }

  private static ServerFrame auth(RawWebSocket c, long uid) throws IOException {
    c.send(Frames.auth(1, TestGateway.token(uid)));
    return c.next();
  }

  @Test
  void theAddressCapCountsTheAddressInTheProxyHeaderNotTheBalancers() throws Exception {
    try (RawWebSocket first = player(v1("203.0.113.7"))) {
      assertThat(auth(first, 61_001).hasAuthOk()).isTrue();
      // Same player address through the same balancer: over the cap of 1.
      try (RawWebSocket second = player(v1("203.0.113.7"))) {
        ServerFrame refused = auth(second, 61_002);
        assertThat(refused.getError().getCode()).isEqualTo(Code.TOO_MANY_CONNECTIONS);
      }
      // Another player behind the same balancer (same socket address 127.0.0.1) gets in.
      try (RawWebSocket other = player(v1("203.0.113.8"))) {
        assertThat(auth(other, 61_003).hasAuthOk()).isTrue();
      }
      // The binary v2 header works the same way.
      try (RawWebSocket binary = player(v2(new byte[] {(byte) 198, 51, 100, 9}))) {
        assertThat(auth(binary, 61_004).hasAuthOk()).isTrue();
        try (RawWebSocket again = player(v2(new byte[] {(byte) 198, 51, 100, 9}))) {
          assertThat(auth(again, 61_005).getError().getCode()).isEqualTo(Code.TOO_MANY_CONNECTIONS);
        }
      }
    }
  }

  /** The balancer's header comes in clear before the TLS handshake, and the cap still counts its address. */
  @Test
  void withTlsTheHeaderPrecedesTheHandshakeAndItsAddressIsCounted(RedisNamespace ns,
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    TestCertificates.Issued ca = TestCertificates.authority(dir, "proxy-tls-ca");
    TestCertificates.Issued cert = TestCertificates.server(dir, "gateway", ca);
    Map<String, String> settings = Map.of("proxy.protocol", "true", "connection.max.per.address", "1",
        "tls.cert", cert.certFile().toString(), "tls.key", cert.keyFile().toString());
    try (TestGateway tls = new TestGateway(ns, settings)) {
      javax.net.ssl.SSLSocketFactory factory = TestCertificates.trusting(ca).getSocketFactory();
      java.util.function.Function<byte[], RawWebSocket> player = header -> {
        try {
          java.net.Socket plain = new java.net.Socket("127.0.0.1", tls.server.wsAddress().getPort());
          plain.getOutputStream().write(header);
          plain.getOutputStream().flush();
          javax.net.ssl.SSLSocket secure = (javax.net.ssl.SSLSocket) factory.createSocket(plain, "localhost",
              tls.server.wsAddress().getPort(), true);
          secure.startHandshake();
          return new RawWebSocket(secure).upgraded();
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      };
      try (RawWebSocket first = player.apply(v1("203.0.113.21"))) {
        assertThat(auth(first, 61_101).hasAuthOk()).isTrue();
        try (RawWebSocket second = player.apply(v1("203.0.113.21"))) {
          assertThat(auth(second, 61_102).getError().getCode()).isEqualTo(Code.TOO_MANY_CONNECTIONS);
        }
        try (RawWebSocket other = player.apply(v2(new byte[] {(byte) 198, 51, 100, 21}))) {
          assertThat(auth(other, 61_103).hasAuthOk()).isTrue();
        }
      }
    }
  }

  @Test
  void aConnectionWithoutAProxyHeaderIsClosed() throws Exception {
    try (RawWebSocket direct = new RawWebSocket(gateway.server.wsAddress().getPort(), 0)) {
      assertThat(org.assertj.core.api.Assertions.catchThrowable(direct::upgrade)).isInstanceOf(IOException.class);
    }
  }

  @Test
  void overGrpcTheAddressCapCountsTheAddressInTheProxyHeader() throws Exception {
    int port = gateway.server.grpcAddress().getPort();
    try (HeaderRelay a1 = new HeaderRelay(port, v1("192.0.2.10")); HeaderRelay a2 = new HeaderRelay(port, v1("192.0.2.10"));
        HeaderRelay b = new HeaderRelay(port, v2(new byte[] {(byte) 192, 0, 2, 11}));
        GrpcPlayerClient first = GrpcPlayerClient.connect(a1.port())) {
      first.send(Frames.auth(1, TestGateway.token(61_011)));
      assertThat(first.next().hasAuthOk()).isTrue();
      // The TCP connection is counted by the header's address too: the second is closed at once.
      double refused = gateway.counter("playline.grpc.connections.refused", "server", "player", "reason", "address");
      try (GrpcPlayerClient second = GrpcPlayerClient.connect(a2.port())) {
        second.send(Frames.auth(1, TestGateway.token(61_012)));
        // Closed at accept: the client names that UNAVAILABLE or, when the close meets its stream's
        // first write, UNKNOWN; the refusal counter below is what says the node refused it.
        assertThat(second.awaitEnd().getCode()).isIn(io.grpc.Status.Code.UNAVAILABLE, io.grpc.Status.Code.UNKNOWN);
      }
      assertThat(gateway.counter("playline.grpc.connections.refused", "server", "player", "reason", "address"))
          .isEqualTo(refused + 1);
      try (GrpcPlayerClient other = GrpcPlayerClient.connect(b.port())) {
        other.send(Frames.auth(1, TestGateway.token(61_013)));
        assertThat(other.next().hasAuthOk()).isTrue();
      }
    }
    // Straight to the port, without a header: no stream.
    try (GrpcPlayerClient direct = GrpcPlayerClient.connect(port)) {
      direct.send(Frames.auth(1, TestGateway.token(61_014)));
      // the gateway closes the socket mid-preface: UNAVAILABLE or UNKNOWN, depending on how the close lands
      assertThat(direct.awaitEnd().getCode()).isIn(io.grpc.Status.Code.UNAVAILABLE, io.grpc.Status.Code.UNKNOWN);
    }
  }

  /** Only peers in proxy.trusted.cidrs may send a header: anyone else could claim any address. */
  @Test
  void aPeerOutsideTheTrustedRangesIsClosedBeforeItCanClaimAnAddress(RedisNamespace ns) throws Exception {
    Map<String, String> settings = Map.of("proxy.protocol", "true", "proxy.trusted.cidrs", "192.0.2.0/24, 2001:db8::/32");
    try (TestGateway strict = new TestGateway(ns, settings)) {
      try (RawWebSocket ws = new RawWebSocket(strict.server.wsAddress().getPort(), 0).raw(v1("203.0.113.30"))) {
        assertThat(org.assertj.core.api.Assertions.catchThrowable(ws::upgrade)).isInstanceOf(IOException.class);
      }
      try (HeaderRelay relay = new HeaderRelay(strict.server.grpcAddress().getPort(), v1("203.0.113.31"));
          GrpcPlayerClient grpc = GrpcPlayerClient.connect(relay.port())) {
        grpc.send(Frames.auth(1, TestGateway.token(61_201)));
        assertThat(grpc.awaitEnd().getCode()).isEqualTo(io.grpc.Status.Code.UNAVAILABLE);
      }
      assertThat(strict.counter("playline.proxy.refused", "port", "ws")).isEqualTo(1);
      assertThat(strict.counter("playline.proxy.refused", "port", "grpc")).isEqualTo(1);
    }
  }

  @Test
  void trustedRangesAreAddressLiteralsNeverNames() {
    io.playline.node.edge.TrustedProxies ranges = io.playline.node.edge.TrustedProxies.parse("10.0.0.0/8,fd00::/8");
    assertThat(ranges.trusts(new java.net.InetSocketAddress("10.1.2.3", 1))).isTrue();
    assertThat(ranges.trusts(new java.net.InetSocketAddress("11.1.2.3", 1))).isFalse();
    assertThat(ranges.trusts(new java.net.InetSocketAddress("fd12::1", 1))).isTrue();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> io.playline.node.edge.TrustedProxies.parse("lb.local/32"))
        .isInstanceOf(io.playline.core.config.ConfigException.class).hasMessageContaining("proxy.trusted.cidrs: 'lb.local/32'");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> io.playline.node.edge.TrustedProxies.parse("10.0.0.0/33"))
        .isInstanceOf(io.playline.core.config.ConfigException.class);
  }

  /**
   * A load balancer in miniature: accepts one connection on a loopback port, connects to the
   * gateway, writes {@code header}, then relays bytes both ways.
   */
  static final class HeaderRelay implements AutoCloseable {
    private final java.net.ServerSocket listener = new java.net.ServerSocket(0, 1,
        java.net.InetAddress.getLoopbackAddress());
    private final java.util.List<java.net.Socket> sockets = new java.util.concurrent.CopyOnWriteArrayList<>();

    HeaderRelay(int gatewayPort, byte[] header) throws IOException {
      Thread acceptor = new Thread(() -> {
        try {
          java.net.Socket client = listener.accept();
          java.net.Socket upstream = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), gatewayPort);
          sockets.add(client);
          sockets.add(upstream);
          upstream.getOutputStream().write(header);
          pipe(client, upstream);
          pipe(upstream, client);
        } catch (IOException e) {
          // closed
        }
      }, "relay-accept");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    int port() {
      return listener.getLocalPort();
    }

    private static void pipe(java.net.Socket from, java.net.Socket to) {
      Thread t = new Thread(() -> {
        try {
          from.getInputStream().transferTo(to.getOutputStream());
        } catch (IOException e) {
          // one side closed
        } finally {
          try {
            to.shutdownOutput();
          } catch (IOException ignored) {
            // already closed
          }
        }
      }, "relay-pipe");
      t.setDaemon(true);
      t.start();
    }

    @Override
    public void close() throws IOException {
      listener.close();
      for (java.net.Socket s : sockets) {
        s.close();
      }
    }
  }
}
