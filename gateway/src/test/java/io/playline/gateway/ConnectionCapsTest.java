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
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** connection.max (per node, both transports) and connection.max.per.user, each exceeded and freed again. */
@ExtendWith(RealRedisExtension.class)
class ConnectionCapsTest {
  static TestGateway gateway;

  @BeforeAll
  static void start(RedisNamespace ns) {
    gateway = new TestGateway(ns, Map.of("connection.max", "3", "connection.max.per.user", "2"));
  }

  @AfterAll
  static void stop() {
    gateway.close();
  }

  private static WsPlayerClient authenticated(long uid) throws Exception {
    WsPlayerClient c = WsPlayerClient.connect(gateway.server.wsAddress().getPort());
    c.send(Frames.auth(1, TestGateway.token(uid)));
    assertThat(c.next().hasAuthOk()).as("auth of uid %s", uid).isTrue();
    return c;
  }

  private static void refusedWith(ServerFrame error, String message) {
    assertThat(error.getError().getCode()).isEqualTo(Code.TOO_MANY_CONNECTIONS);
    assertThat(error.getError().getMessage()).isEqualTo(message);
  }

  @Test
  void aUserGetsAtMostItsConnectionsAndTheNodeAtMostItsOwn() throws Exception {
    try (WsPlayerClient a1 = authenticated(42); WsPlayerClient a2 = authenticated(42)) {
      // A third connection of uid 42 is refused at auth and closed.
      try (WsPlayerClient a3 = WsPlayerClient.connect(gateway.server.wsAddress().getPort())) {
        a3.send(Frames.auth(1, TestGateway.token(42)));
        refusedWith(a3.next(), "more than 2 connections of this user on this node");
        assertThat(a3.awaitClose().code()).isEqualTo(4000 + Code.TOO_MANY_CONNECTIONS.getNumber());
      }
      try (WsPlayerClient b1 = authenticated(43)) {
        // The node holds 3 connections: a fourth is refused on either transport, before auth.
        try (WsPlayerClient c1 = WsPlayerClient.connect(gateway.server.wsAddress().getPort())) {
          refusedWith(c1.next(), "more than 3 connections on this node");
        }
        try (GrpcPlayerClient g1 = GrpcPlayerClient.connect(gateway.server.grpcAddress().getPort())) {
          g1.send(Frames.auth(1, TestGateway.token(44)));
          refusedWith(g1.next(), "more than 3 connections on this node");
        }
        // The connections that were let in are untouched.
        assertThat(b1.closed).isNotDone();
      }
      assertThat(a1.closed).isNotDone();
      assertThat(a2.closed).isNotDone();
    }
    // Every slot is given back when its connection closes.
    await().atMost(Duration.ofSeconds(10)).until(() -> gateway.server.connectionLimiter().connections() == 0);
    try (WsPlayerClient a1 = authenticated(42); WsPlayerClient a2 = authenticated(42);
        WsPlayerClient b1 = authenticated(43)) {
      assertThat(gateway.server.connectionLimiter().connections()).isEqualTo(3);
      assertThat(List.of(a1.closed, a2.closed, b1.closed)).noneMatch(java.util.concurrent.CompletableFuture::isDone);
    }
  }

  @Test
  void aConnectionTheServerClosesGivesItsSlotBack() throws Exception {
    // More refused logins than the node has slots, on both transports: none may keep its slot.
    for (int i = 0; i < 4; i++) {
      try (GrpcPlayerClient g = GrpcPlayerClient.connect(gateway.server.grpcAddress().getPort())) {
        g.send(Frames.auth(1, TestGateway.token(45) + "x"));
        assertThat(g.next().getError().getCode()).isEqualTo(Code.UNAUTHENTICATED);
        g.awaitEnd();
      }
      try (WsPlayerClient w = WsPlayerClient.connect(gateway.server.wsAddress().getPort())) {
        w.send(Frames.auth(1, TestGateway.token(45) + "x"));
        assertThat(w.next().getError().getCode()).isEqualTo(Code.UNAUTHENTICATED);
        w.awaitClose();
      }
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> gateway.server.connectionLimiter().connections() == 0);
  }
}
