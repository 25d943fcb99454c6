package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.gateway.ProxyProtocolTest.HeaderRelay;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import io.playline.testing.GrpcPlayerClient;
import io.playline.testing.RawHttp2Client;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Per-address budgets of new connections at accept, one across both player ports: past its burst an
 * address's new connections are on probation, which closes strangers that do not authenticate and
 * never players, while another address connects freely. Abuse closes only the
 * connection that misbehaved; an address whose strangers keep misbehaving is on probation, which
 * closes strangers that do not authenticate and never players. Distinct addresses
 * on loopback are PROXY protocol headers sent by a relay, as a load balancer would.
 */
@ExtendWith(RealRedisExtension.class)
class ConnectionRateTest {
  private static final AtomicLong UIDS = new AtomicLong(29_000);
  private TestGateway gateway;

  @AfterEach
  void stop() {
    gateway.close();
  }

  private double refused(String transport, String reason) {
    return gateway.counter("playline.connections.refused", "transport", transport, "reason", reason);
  }

  /** A WebSocket upgrade, behind a PROXY header naming {@code address} when given: true when it was accepted. */
  private boolean upgrades(@Nullable String address) {
    try (RawWebSocket c = new RawWebSocket(gateway.server.wsAddress().getPort(), 0)) {
      if (address != null) {
        c.raw(ProxyProtocolTest.v1(address));
      }
      return c.upgrade().startsWith("HTTP/1.1 101");
    } catch (IOException e) {
      return false;
    }
  }

  /** A gRPC stream from {@code address} through a header relay: true when it authenticated, false when closed. */
  private boolean grpcAuthenticates(String address) throws Exception {
    try (HeaderRelay relay = new HeaderRelay(gateway.server.grpcAddress().getPort(), ProxyProtocolTest.v1(address))) {
      return grpcAuthenticatesOn(relay.port());
    }
  }

  /** A gRPC stream to {@code port}: true when it authenticated, false when closed. */
  private boolean grpcAuthenticatesOn(int port) throws Exception {
    try (GrpcPlayerClient c = GrpcPlayerClient.connect(port)) {
      c.send(Frames.auth(1, TestGateway.token(UIDS.incrementAndGet())));
      AtomicReference<ServerFrame> answer = new AtomicReference<>();
      await().atMost(Duration.ofSeconds(10)).until(() -> {
        answer.compareAndSet(null, c.poll(20));
        return answer.get() != null || c.end.isDone();
      });
      return answer.get() != null && answer.get().hasAuthOk();
    }
  }

  private double probation(String transport, String reason) {
    return gateway.counter("playline.connections.probation", "transport", transport, "reason", reason);
  }

  /** A WebSocket upgraded behind a PROXY header naming {@code address}. */
  private RawWebSocket upgradedFrom(String address) throws IOException {
    RawWebSocket c = new RawWebSocket(gateway.server.wsAddress().getPort(), 0).raw(ProxyProtocolTest.v1(address));
    assertThat(c.upgrade()).startsWith("HTTP/1.1 101");
    return c;
  }

  /** A WebSocket from {@code address} that authenticated a fresh uid. */
  private RawWebSocket playerFrom(String address) throws IOException {
    RawWebSocket p = upgradedFrom(address);
    p.send(Frames.auth(1, TestGateway.token(UIDS.incrementAndGet())));
    assertThat(p.next().hasAuthOk()).isTrue();
    return p;
  }

  @Test
  void pastItsNewConnectionRateAnAddressIsOnProbationThatClosesStrangersAndAdmitsPlayersOnBothPorts(
      RedisNamespace ns) throws Exception {
    gateway = new TestGateway(ns, Map.of("proxy.protocol", "true", "connection.max.new.per.address.per.second", "1",
        "connection.max.new.per.address.burst", "5", "connection.abuse.probation.timeout", "1500ms",
        "auth.timeout", "1m"));
    String address = "203.0.113.40";
    for (int i = 0; i < 5; i++) {
      assertThat(upgrades(address)).as("the burst, freely").isTrue();
    }
    // A reconnect storm past the burst: every player of the address is admitted (on probation) and
    // authenticates, on both ports, one held past its deadline; the gRPC port shares the budget.
    try (RawWebSocket held = playerFrom(address)) {
      for (int i = 0; i < 10; i++) {
        try (RawWebSocket p = playerFrom(address)) {
          assertThat(stillServed(p)).isTrue();
        }
        assertThat(grpcAuthenticates(address)).as("gRPC player %d", i).isTrue();
      }
      assertThat(probation("ws", "rate")).isPositive();
      assertThat(probation("grpc", "rate")).isPositive();
      // Strangers over the rate are closed at the deadline; those a refilled token admitted freely are
      // not (auth.timeout and grpc.first.stream.timeout are far off): on each port, some are closed and
      // as many as were admitted on probation.
      double wsBefore = probation("ws", "rate");
      double grpcBefore = probation("grpc", "rate");
      List<AutoCloseable> strangers = new ArrayList<>();
      try {
        for (int i = 0; i < 3; i++) {
          strangers.add(upgradedFrom(address));
          HeaderRelay relay = new HeaderRelay(gateway.server.grpcAddress().getPort(), ProxyProtocolTest.v1(address));
          strangers.add(relay);
          strangers.add(RawHttp2Client.connect(relay.port())); // the HTTP/2 preface, no stream
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> refused("ws", "rate") > 0 && refused("grpc", "rate") > 0
            && refused("grpc", "rate") == probation("grpc", "rate") - grpcBefore
            && refused("ws", "rate") == probation("ws", "rate") - wsBefore);
      } finally {
        for (AutoCloseable c : strangers) {
          c.close();
        }
      }
      assertThat(stillServed(held)).as("the player held past its own deadline").isTrue();
    }
    assertThat(refused("ws", "unproven") + refused("ws", "penalty") + refused("grpc", "penalty")).isZero();
    // Another address behind the same balancer is served freely on both ports.
    double free = probation("ws", "rate") + probation("grpc", "rate");
    assertThat(upgrades("203.0.113.41")).isTrue();
    assertThat(grpcAuthenticates("203.0.113.41")).isTrue();
    assertThat(probation("ws", "rate") + probation("grpc", "rate")).isEqualTo(free);
  }

  /** A malformed frame sent before auth: the connection is answered PROTOCOL_VIOLATION and closed. */
  private void strangerSendsAMalformedFrame() throws IOException {
    try (RawWebSocket stranger = new RawWebSocket(gateway.server.wsAddress().getPort(), 0).upgraded()) {
      RawWebSocket.sendFrame(stranger.out, new byte[] {0x0A, 0x05, 0x01}); // field 1 says 5 bytes, 1 follows
      stranger.out.flush();
      assertThat(stranger.next().getError().getCode()).isEqualTo(Code.PROTOCOL_VIOLATION);
      assertThat(stranger.closedByServer()).isTrue();
    }
  }

  /** An upgraded WebSocket that authenticated a fresh uid. */
  private RawWebSocket player() throws IOException {
    RawWebSocket p = new RawWebSocket(gateway.server.wsAddress().getPort(), 0).upgraded();
    p.send(Frames.auth(1, TestGateway.token(UIDS.incrementAndGet())));
    assertThat(p.next().hasAuthOk()).isTrue();
    return p;
  }

  /** True when {@code p} still answers a ping with a pong. */
  private static boolean stillServed(RawWebSocket p) throws IOException {
    p.sendControl(false, new byte[] {7});
    p.out.flush();
    return p.nextFrame().opcode() == 0xA;
  }

  @Test
  void aMalformedFrameClosesOnlyItsConnectionAndTheNeighboursBehindItsAddressKeepConnecting(RedisNamespace ns)
      throws Exception {
    gateway = new TestGateway(ns, Map.of("connection.abuse.penalty", "1m"));
    try (RawWebSocket before = player()) {
      strangerSendsAMalformedFrame();
      assertThat(gateway.counter("playline.connections.abuse.cuts", "transport", "ws", "by", "stranger")).isEqualTo(1);
      assertThat(gateway.counter("playline.connections.penalized", "transport", "ws")).isZero();
      assertThat(stillServed(before)).as("a player connected before it").isTrue();
      for (int i = 0; i < 5; i++) {
        try (RawWebSocket after = player()) {
          assertThat(stillServed(after)).as("player %d after it", i).isTrue();
        }
        assertThat(grpcAuthenticatesOn(gateway.server.grpcAddress().getPort())).isTrue();
      }
      assertThat(refused("ws", "penalty") + refused("ws", "rate") + refused("ws", "unproven")).isZero();
    }
  }

  @Test
  void anAddressWhoseStrangersKeepMisbehavingIsOnProbationThatRefusesStrangersButNotPlayers(RedisNamespace ns)
      throws Exception {
    gateway = new TestGateway(ns, Map.of("connection.abuse.strikes", "3", "connection.abuse.penalty", "1m",
        "connection.abuse.probation.timeout", "1500ms", "auth.timeout", "10s"));
    strangerSendsAMalformedFrame();
    strangerSendsAMalformedFrame();
    assertThat(gateway.counter("playline.connections.penalized", "transport", "ws")).isZero();
    strangerSendsAMalformedFrame();
    assertThat(gateway.counter("playline.connections.penalized", "transport", "ws")).isEqualTo(1);
    // On probation: a player behind the address is admitted and authenticates; a stranger that does
    // not authenticate is closed at the probation's deadline, counted as refused for the penalty.
    try (RawWebSocket player = player()) {
      try (RawWebSocket stranger = new RawWebSocket(gateway.server.wsAddress().getPort(), 0).upgraded()) {
        assertThat(stranger.closedByServer()).isTrue();
      }
      assertThat(refused("ws", "penalty")).isEqualTo(1);
      // The player connected before the stranger: its own deadline has passed too, and it is served.
      assertThat(stillServed(player)).isTrue();
      // Strikes during the probation do not lengthen it; the gRPC port is on the same probation.
      try (RawHttp2Client idle = RawHttp2Client.tcp(gateway.server.grpcAddress().getPort())) {
        await().atMost(Duration.ofSeconds(10)).until(idle::closed);
      }
      assertThat(refused("grpc", "penalty")).isEqualTo(1);
      assertThat(grpcAuthenticatesOn(gateway.server.grpcAddress().getPort())).as("a gRPC player behind the address")
          .isTrue();
      assertThat(stillServed(player)).isTrue();
    }
  }

  @Test
  void anAddressCutForRapidResetByAStrangerPutsItsStrangersOnProbation(RedisNamespace ns) throws Exception {
    gateway = new TestGateway(ns, Map.of("grpc.max.rst.frames.per.window", "50", "connection.abuse.penalty", "5s",
        "connection.abuse.strikes", "1", "connection.abuse.probation.timeout", "1500ms", "auth.timeout", "10s"));
    int port = gateway.server.grpcAddress().getPort();
    try (RawHttp2Client attacker = RawHttp2Client.connect(port)) {
      for (int sent = 0; sent < 20_000 && !attacker.closed(); sent += 10) {
        attacker.streams(10, true);
      }
      await().atMost(Duration.ofSeconds(5)).until(attacker::closed);
    }
    assertThat(gateway.counter("playline.connections.penalized", "transport", "grpc")).isEqualTo(1);
    // A stranger's next connection, on either port, is closed at the probation's deadline.
    try (RawHttp2Client again = RawHttp2Client.tcp(port)) {
      await().atMost(Duration.ofSeconds(5)).until(again::closed);
    }
    assertThat(refused("grpc", "penalty")).isEqualTo(1);
    try (RawWebSocket stranger = new RawWebSocket(gateway.server.wsAddress().getPort(), 0).upgraded()) {
      assertThat(stranger.closedByServer()).isTrue();
    }
    assertThat(refused("ws", "penalty")).isEqualTo(1);
    // A player is not.
    try (RawWebSocket player = player()) {
      assertThat(stillServed(player)).isTrue();
    }
    assertThat(refused("ws", "rate")).isZero();
  }

  @Test
  void aPlayersPingFloodClosesItsConnectionAndNeverPenalizesItsAddress(RedisNamespace ns) throws Exception {
    gateway = new TestGateway(ns, Map.of("connection.max.pings.per.second", "2", "connection.abuse.penalty", "1m",
        "connection.abuse.strikes", "1"));
    try (RawWebSocket flooder = player()) {
      for (int i = 0; i < 5; i++) {
        flooder.sendControl(false, new byte[] {1});
      }
      flooder.out.flush();
      RawWebSocket.Frame answer = flooder.nextFrame();
      while (answer.opcode() == 0xA) { // the pongs within the limit
        answer = flooder.nextFrame();
      }
      assertThat(ServerFrame.parseFrom(answer.payload()).getError().getCode()).isEqualTo(Code.RATE_LIMITED);
    }
    assertThat(gateway.counter("playline.connections.abuse.cuts", "transport", "ws", "by", "player")).isEqualTo(1);
    assertThat(gateway.counter("playline.connections.penalized", "transport", "ws")).isZero();
    try (RawWebSocket neighbour = new RawWebSocket(gateway.server.wsAddress().getPort(), 0).upgraded()) {
      neighbour.send(Frames.auth(1, TestGateway.token(UIDS.incrementAndGet())));
      assertThat(neighbour.next().hasAuthOk()).isTrue();
    }
  }
}
