package io.playline.gateway.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.gateway.TestGateway;
import io.playline.gateway.stream.ConnectionIdentity;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Connect, authenticate, close, over and over with one token: the stored sessions of a user stay
 * within session.max.per.user, and a device's new session replaces its old one (real Redis).
 */
@ExtendWith(RealRedisExtension.class)
class SessionCapTest {
  private static final int CAP = 3;
  private static final int CYCLES = 40;

  private static TestGateway node(RedisNamespace ns) {
    return new TestGateway(ns, Map.of("session.max.per.user", Integer.toString(CAP),
        "connection.max.per.user", "1000"));
  }

  /** One cycle: a new session of {@code device}; its id. */
  private static String authenticateAndClose(TestGateway node, String token, String device) throws Exception {
    try (WsPlayerClient c = node.ws()) {
      c.send(Frames.auth(1, token, device));
      ServerFrame ok = c.next();
      assertThat(ok.hasAuthOk()).as("%s", ok).isTrue();
      return ok.getAuthOk().getSessionId();
    }
  }

  private static long storedSessions(TestGateway node) throws Exception {
    byte[] pattern = (node.keys.prefix() + "s:*").getBytes(StandardCharsets.UTF_8);
    return node.redis.shared().keys(pattern).get().size();
  }

  private static ServerFrame resume(TestGateway node, String sessionId, String device) throws Exception {
    try (WsPlayerClient c = node.ws()) {
      c.send(Frames.resume(1, sessionId, device));
      return c.next();
    }
  }

  @Test
  void reAuthenticatingOneDeviceReplacesItsSession(RedisNamespace ns) throws Exception {
    try (TestGateway node = node(ns)) {
      String token = TestGateway.token(99_001);
      String last = "";
      for (int i = 0; i < CYCLES; i++) {
        last = authenticateAndClose(node, token, "tv");
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> storedSessions(node) == 1);
      await().atMost(Duration.ofSeconds(10))
          .until(() -> node.counter("playline.sessions.dropped", "reason", "replaced") == CYCLES - 1);
      assertThat(resume(node, last, "tv").getAuthOk().getSessionId()).isEqualTo(last);
    }
  }

  @Test
  void aUserKeepsAtMostTheCapOfSessionsTheNewest(RedisNamespace ns) throws Exception {
    try (TestGateway node = node(ns)) {
      String token = TestGateway.token(99_002);
      List<String> sessions = new ArrayList<>();
      for (int i = 0; i < CYCLES; i++) {
        sessions.add(authenticateAndClose(node, token, "device-" + i));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> storedSessions(node) == CAP);
      await().atMost(Duration.ofSeconds(10))
          .until(() -> node.counter("playline.sessions.dropped", "reason", "over_cap") == CYCLES - CAP);
      for (int i = CYCLES - CAP; i < CYCLES; i++) {
        assertThat(resume(node, sessions.get(i), "device-" + i).hasAuthOk()).as("session %s", i).isTrue();
      }
      ServerFrame dropped = resume(node, sessions.get(0), "device-0");
      assertThat(dropped.getError().getCode()).isEqualTo(Code.SESSION_EXPIRED);
      // Another user's sessions are not touched by this one's cap.
      String other = authenticateAndClose(node, TestGateway.token(99_003), "device-0");
      await().atMost(Duration.ofSeconds(10)).until(() -> storedSessions(node) == CAP + 1);
      assertThat(resume(node, other, "device-0").hasAuthOk()).isTrue();
    }
  }

  private static StoredSession session(long uid, String device, long nowMs) {
    return new StoredSession(new ConnectionIdentity(uid, java.util.UUID.randomUUID().toString(), device, "web"),
        nowMs + 3_600_000, nowMs);
  }

  @Test
  void theNewestSessionSurvivesACapOfOneWhenClocksTieOrRunBehind(RedisNamespace ns) throws Exception {
    try (TestGateway node = node(ns)) {
      RedisResumeStore store = new RedisResumeStore(node.redis.shared(), node.keys, Duration.ofHours(1),
          Duration.ofDays(1), 1, "test-node", new GatewayMetrics(new SimpleMeterRegistry()));
      long now = System.currentTimeMillis();
      // Same millisecond; the newer device sorts first by name, so a tie would rank it lowest.
      StoredSession older = session(99_004, "phone", now);
      StoredSession newer = session(99_004, "laptop", now);
      // A node whose clock is a minute behind the stored score.
      StoredSession behind = session(99_004, "console", now - 60_000);
      for (StoredSession s : List.of(older, newer, behind)) {
        store.create(s, s.createdAtMs());
        String id = s.identity().sessionId();
        await().atMost(Duration.ofSeconds(10)).until(() -> storedSessions(node) == 1
            && store.find(id).toCompletableFuture().get().isPresent());
      }
      assertThat(store.find(older.identity().sessionId()).toCompletableFuture().get()).isEmpty();
      assertThat(store.find(newer.identity().sessionId()).toCompletableFuture().get()).isEmpty();
    }
  }

  @Test
  void onlySessionsTheCapDeletedCountAsDropped(RedisNamespace ns) throws Exception {
    try (TestGateway node = node(ns)) {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      RedisResumeStore store = new RedisResumeStore(node.redis.shared(), node.keys, Duration.ofHours(1),
          Duration.ofDays(1), 1, "test-node", new GatewayMetrics(registry));
      long now = System.currentTimeMillis();
      List<StoredSession> sessions = List.of(session(99_005, "tv", now), session(99_005, "tv", now + 1),
          session(99_005, "tv", now + 2));
      for (StoredSession s : sessions) {
        store.create(s, s.createdAtMs());
        String id = s.identity().sessionId();
        await().atMost(Duration.ofSeconds(10)).until(() -> storedSessions(node) == 1
            && store.find(id).toCompletableFuture().get().isPresent());
        if (s == sessions.get(0)) {
          // The first expires before the second replaces it: nothing left to drop.
          node.redis.shared().del(node.keys.session(id)).get();
        }
      }
      assertThat(registry.get("playline.sessions.dropped").tag("reason", "replaced").counter().count()).isEqualTo(1);
    }
  }
}
