package io.playline.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.nimbusds.jwt.SignedJWT;
import io.grpc.Status;
import io.playline.gateway.session.JwtTokens;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.Refresh;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import io.playline.testing.GrpcPlayerClient;
import io.playline.testing.ManualTime;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Tokens on live connections: AuthOk carries the credential's expiry, a Refresh with a token of
 * the same user moves it, a connection without one is closed with TOKEN_EXPIRED after the grace,
 * and a resumable session is bound to its device, keeps its token's expiry and never outlives
 * session.max.age. Both nodes run on one {@link ManualTime}: expiries are crossed by moving it, to
 * the millisecond, never by waiting.
 */
@ExtendWith(RealRedisExtension.class)
class TokenExpiryTest {
  private static final long GRACE_MS = 1_000;
  private static final AtomicLong UIDS = new AtomicLong(7_000);
  static TestGateway gateway;
  /** A node whose sessions may be resumed for 6 s after their token was verified. */
  static TestGateway shortSessions;
  static RedisNamespace redis;
  /** Starts on a whole second, as token expiries (JWT {@code exp}) are. */
  static final ManualTime time = new ManualTime(Instant.now().truncatedTo(ChronoUnit.SECONDS));

  @BeforeAll
  static void start(RedisNamespace ns) {
    redis = ns;
    gateway = new TestGateway(ns, Map.of("auth.clock.skew", "0s", "auth.expiry.grace", GRACE_MS + "ms"), time);
    shortSessions = new TestGateway(ns, Map.of("auth.clock.skew", "0s", "session.max.age", "6s"), time);
  }

  @AfterAll
  static void stop() {
    gateway.close();
    shortSessions.close();
  }

  private static String token(long uid, Duration ttl) {
    return JwtTokens.mint(TestGateway.SECRET, uid, ttl, time.instant());
  }

  /** Moves the nodes' time to {@code epochMs}. */
  private static void advanceTo(long epochMs) {
    time.advance(Duration.ofMillis(epochMs - time.millis()));
  }

  private static long expiryOf(String token) throws Exception {
    return SignedJWT.parse(token).getJWTClaimsSet().getExpirationTime().getTime();
  }

  private static WsPlayerClient ws(TestGateway node) {
    return WsPlayerClient.connect(node.server.wsAddress().getPort());
  }

  @Test
  void authOkCarriesTheTokenExpiryAndARefreshKeepsTheConnectionPastIt() throws Exception {
    long uid = UIDS.incrementAndGet();
    String shortToken = token(uid, Duration.ofSeconds(2));
    String longToken = token(uid, Duration.ofHours(1));
    double refreshed = gateway.counter("playline.auth", "result", "refreshed");
    try (WsPlayerClient c = ws(gateway)) {
      c.send(Frames.auth(1, shortToken, "phone"));
      assertThat(c.next().getAuthOk().getExpiresAtMs()).isEqualTo(expiryOf(shortToken));
      c.send(Frames.refresh(2, longToken));
      ServerFrame ok = c.next();
      assertThat(ok.getSeq()).isEqualTo(2);
      assertThat(ok.getRefreshOk().getExpiresAtMs()).isEqualTo(expiryOf(longToken));
      // Well past the first token's expiry plus the grace, the connection is still served.
      long closeAt = expiryOf(shortToken) + GRACE_MS;
      advanceTo(closeAt + 1_500);
      c.send(Frames.keepAlive(3));
      ServerFrame ack = c.next();
      assertThat(ack.getSeq()).isEqualTo(3);
      assertThat(ack.hasHeartbeatAck()).as("%s", ack).isTrue();
      assertThat(c.closed).isNotDone();
    }
    assertThat(gateway.counter("playline.auth", "result", "refreshed")).isEqualTo(refreshed + 1);
  }

  @Test
  void withoutARefreshTheConnectionIsClosedWithTokenExpiredAfterTheGrace() throws Exception {
    String token = token(UIDS.incrementAndGet(), Duration.ofSeconds(2));
    try (WsPlayerClient c = ws(gateway)) {
      c.send(Frames.auth(1, token, "phone"));
      assertThat(c.next().hasAuthOk()).isTrue();
      // A millisecond before the grace ends the connection is still served...
      advanceTo(expiryOf(token) + GRACE_MS - 1);
      c.send(Frames.keepAlive(2));
      assertThat(c.next().hasHeartbeatAck()).isTrue();
      // ...and at its end it is closed.
      advanceTo(expiryOf(token) + GRACE_MS);
      ServerFrame error = c.next();
      assertThat(error.getSeq()).isZero();
      assertThat(error.getError().getCode()).isEqualTo(Code.TOKEN_EXPIRED);
      assertThat(error.getError().getMessage()).contains("without a refresh");
      assertThat(c.awaitClose().code()).isEqualTo(4000 + Code.TOKEN_EXPIRED.getNumber());
    }
  }

  @Test
  void overGrpcAnExpiredTokenEndsTheStreamUnauthenticated() throws Exception {
    // exp has whole seconds: a 1-second token could be expired by the time it is checked
    String token = token(UIDS.incrementAndGet(), Duration.ofSeconds(2));
    try (GrpcPlayerClient c = GrpcPlayerClient.connect(gateway.server.grpcAddress().getPort())) {
      c.send(Frames.auth(1, token, "tv"));
      assertThat(c.next().getAuthOk().getExpiresAtMs()).isEqualTo(expiryOf(token));
      advanceTo(expiryOf(token) + GRACE_MS);
      assertThat(c.next().getError().getCode()).isEqualTo(Code.TOKEN_EXPIRED);
      Status end = c.awaitEnd();
      assertThat(end.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
      assertThat(end.getDescription()).startsWith("TOKEN_EXPIRED");
    }
  }

  @Test
  void aRefreshWithAnotherUsersTokenIsRefusedAndCloses() throws Exception {
    long uid = UIDS.incrementAndGet();
    double rejected = gateway.counter("playline.auth", "result", "refresh_rejected");
    try (WsPlayerClient c = ws(gateway)) {
      c.send(Frames.auth(1, token(uid, Duration.ofHours(1)), "phone"));
      assertThat(c.next().hasAuthOk()).isTrue();
      c.send(Frames.refresh(2, token(uid + 1, Duration.ofHours(1))));
      ServerFrame error = c.next();
      assertThat(error.getSeq()).isEqualTo(2);
      assertThat(error.getError().getCode()).isEqualTo(Code.UNAUTHENTICATED);
      assertThat(error.getError().getMessage()).contains("another user");
      assertThat(c.awaitClose().code()).isEqualTo(4000 + Code.UNAUTHENTICATED.getNumber());
    }
    try (WsPlayerClient c = ws(gateway)) {
      c.send(Frames.auth(1, token(uid, Duration.ofHours(1)), "phone"));
      assertThat(c.next().hasAuthOk()).isTrue();
      c.send(Frames.refresh(2, "not-a-token"));
      assertThat(c.next().getError().getCode()).isEqualTo(Code.UNAUTHENTICATED);
      assertThat(c.awaitClose().code()).isEqualTo(4000 + Code.UNAUTHENTICATED.getNumber());
    }
    assertThat(gateway.counter("playline.auth", "result", "refresh_rejected")).isEqualTo(rejected + 2);
  }

  @Test
  void aSessionIsResumedOnlyByTheDeviceThatCreatedIt() throws Exception {
    long uid = UIDS.incrementAndGet();
    String sessionId;
    try (WsPlayerClient c = ws(gateway)) {
      c.send(Frames.auth(1, token(uid, Duration.ofHours(1)), "phone"));
      sessionId = c.next().getAuthOk().getSessionId();
    }
    try (WsPlayerClient other = ws(gateway)) {
      other.send(Frames.resume(1, sessionId, "tablet"));
      ServerFrame error = other.next();
      assertThat(error.getError().getCode()).isEqualTo(Code.SESSION_EXPIRED);
      assertThat(error.getError().getMessage()).contains("another device");
      assertThat(other.awaitClose().code()).isEqualTo(4000 + Code.SESSION_EXPIRED.getNumber());
    }
    try (WsPlayerClient withToken = ws(gateway)) {
      // With a token as well, the other device gets a session of its own.
      withToken.send(Frames.resume(1, token(uid, Duration.ofHours(1)), sessionId, "tablet"));
      assertThat(withToken.next().getAuthOk().getSessionId()).isNotEqualTo(sessionId);
    }
    try (WsPlayerClient same = ws(gateway)) {
      same.send(Frames.resume(1, sessionId, "phone"));
      assertThat(same.next().getAuthOk().getSessionId()).isEqualTo(sessionId);
    }
  }

  @Test
  void aResumedSessionKeepsItsTokensExpiryAndARefreshRenewsIt() throws Exception {
    long uid = UIDS.incrementAndGet();
    String first = token(uid, Duration.ofHours(1));
    String second = token(uid, Duration.ofHours(2));
    String sessionId;
    try (WsPlayerClient c = ws(gateway)) {
      c.send(Frames.auth(1, first, "phone"));
      sessionId = c.next().getAuthOk().getSessionId();
    }
    try (WsPlayerClient c = ws(gateway)) {
      c.send(Frames.resume(1, sessionId, "phone"));
      assertThat(c.next().getAuthOk().getExpiresAtMs()).isEqualTo(expiryOf(first));
      c.send(Frames.refresh(2, second));
      assertThat(c.next().getRefreshOk().getExpiresAtMs()).isEqualTo(expiryOf(second));
    }
    // The resume store is renewed asynchronously: a later resume carries the newer token's expiry.
    await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
      try (WsPlayerClient c = ws(gateway)) {
        c.send(Frames.resume(1, sessionId, "phone"));
        return c.next().getAuthOk().getExpiresAtMs() == expiryOf(second);
      }
    });
  }

  @Test
  void aSessionIsNotResumedOnceItsTokenExpired() throws Exception {
    String token = token(UIDS.incrementAndGet(), Duration.ofSeconds(2));
    String sessionId;
    try (WsPlayerClient c = ws(gateway)) {
      c.send(Frames.auth(1, token, "phone"));
      sessionId = c.next().getAuthOk().getSessionId();
    }
    // The stored session dies with its token in Redis as well.
    byte[] key = gateway.keys.session(sessionId);
    await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
        .until(() -> gateway.redis.shared().pttl(key).get() > 0);
    assertThat(gateway.redis.shared().pttl(key).get()).isLessThanOrEqualTo(2_000);
    advanceTo(expiryOf(token) + 1);
    try (WsPlayerClient c = ws(gateway)) {
      c.send(Frames.resume(1, sessionId, "phone"));
      assertThat(c.next().getError().getCode()).isEqualTo(Code.SESSION_EXPIRED);
    }
  }

  @Test
  void refreshingNeverKeepsASessionPastItsMaximumAge() throws Exception {
    long uid = UIDS.incrementAndGet();
    String sessionId;
    long verified;
    try (WsPlayerClient c = ws(shortSessions)) {
      c.send(Frames.auth(1, token(uid, Duration.ofHours(1)), "phone"));
      sessionId = c.next().getAuthOk().getSessionId();
      verified = time.millis();
      c.send(Frames.refresh(2, token(uid, Duration.ofHours(2))));
      assertThat(c.next().hasRefreshOk()).isTrue();
    }
    try (WsPlayerClient c = ws(shortSessions)) {
      c.send(Frames.resume(1, sessionId, "phone"));
      assertThat(c.next().getAuthOk().getSessionId()).isEqualTo(sessionId);
    }
    advanceTo(verified + 6_000 - 1);
    try (WsPlayerClient c = ws(shortSessions)) {
      c.send(Frames.resume(1, sessionId, "phone"));
      assertThat(c.next().getAuthOk().getSessionId()).as("a millisecond before its maximum age").isEqualTo(sessionId);
    }
    advanceTo(verified + 6_000);
    try (WsPlayerClient c = ws(shortSessions)) {
      c.send(Frames.resume(1, sessionId, "phone"));
      ServerFrame error = c.next();
      assertThat(error.getError().getCode()).isEqualTo(Code.SESSION_EXPIRED);
    }
  }
}
