package io.playline.gateway.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.playline.core.write.WriteOutcome;
import io.playline.gateway.heartbeat.EventWait;
import io.playline.gateway.push.RecordingTransport;
import io.playline.gateway.stream.ConnectionIdentity;
import io.playline.node.write.FlagCalendar;
import io.playline.node.write.PendingWrite;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link StreamSession} driven frame by frame on in-memory fakes of its narrow parts ({@link
 * SessionFixture}), without Redis or a socket: each message goes through the connection's decode
 * step ({@link FrameDecoder}) as a transport hands it over, timers run when the test moves the
 * {@code ManualTime}.
 */
class StreamSessionTest {
  private static final long UID = 42;
  /** One connection per user: a test sees whether a closed connection gave its place back. */
  private final SessionFixture fixture = new SessionFixture(Map.of("connection.max.per.user", "1"));
  private final EmbeddedChannel channel = new EmbeddedChannel();
  private final RecordingTransport transport = new RecordingTransport(channel.eventLoop());
  private final EventWait wait = fixture.parts.eventWait();
  private final FrameDecoder decoder = new FrameDecoder(wait);
  private final StreamSession session = new StreamSession(transport, fixture.parts, wait);

  @AfterEach
  void close() {
    session.onTransportClosed();
    channel.finishAndReleaseAll();
  }

  private void receive(ClientFrame frame) {
    session.onFrame(decoder.decode(ByteBuffer.wrap(frame.toByteArray())));
  }

  /** Moves the time by {@code by} and runs the session's timers that came due. */
  private void advance(Duration by) {
    fixture.time.advance(by);
    channel.runPendingTasks();
  }

  private ServerFrame closedWith() {
    assertThat(transport.closedWith).as("the session closed the connection").isNotNull();
    return transport.closedWith;
  }

  private ServerFrame open() {
    return open(fixture.token(UID));
  }

  private ServerFrame open(String token) {
    session.start();
    receive(Frames.auth(1, token));
    assertThat(transport.sent).as("the answer to auth").hasSize(1);
    return transport.sent.get(0);
  }

  @Test
  void aTokenOpensTheConnectionAndRecordsASession() {
    ServerFrame ok = open();
    assertThat(ok.getSeq()).isEqualTo(1);
    assertThat(ok.getAuthOk().getUid()).isEqualTo(UID);
    assertThat(ok.getAuthOk().getHeartbeatIntervalMs())
        .isEqualTo((int) fixture.config.heartbeatInterval().toMillis());
    assertThat(fixture.stored).containsKey(ok.getAuthOk().getSessionId());
    assertThat(transport.authenticated).as("the transport learns the player authenticated").isTrue();
    assertThat(session.identity()).extracting(ConnectionIdentity::uid).isEqualTo(UID);
    assertThat(fixture.registry.get("playline.auth").tag("result", "ok").counter().count()).isEqualTo(1);
    assertThat(fixture.push.registered).singleElement().satisfies(r -> {
      assertThat(r.identity).isEqualTo(session.identity());
      assertThat(r.closed).isFalse();
    });
  }

  @Test
  void aRejectedTokenClosesUnauthenticatedAndOpensNothing() {
    session.start();
    receive(Frames.auth(1, "forged"));
    assertThat(closedWith().getSeq()).isEqualTo(1);
    assertThat(closedWith().getError().getCode()).isEqualTo(Code.UNAUTHENTICATED);
    assertThat(closedWith().getError().getMessage()).isEqualTo("unknown token");
    assertThat(fixture.tokens.checked).containsExactly("forged");
    assertThat(fixture.registry.get("playline.auth").tag("result", "rejected").counter().count()).isEqualTo(1);
    assertThat(transport.authenticated).isFalse();
    assertThat(session.identity()).isNull();
    assertThat(fixture.stored).as("no session recorded").isEmpty();
    assertThat(fixture.push.registered).as("nothing registered for push").isEmpty();
  }

  @Test
  void anUnreachableIdentityServiceClosesUnavailable() {
    fixture.tokens.down = true;
    session.start();
    receive(Frames.auth(1, fixture.token(UID)));
    assertThat(closedWith().getError().getCode()).isEqualTo(Code.UNAVAILABLE);
    assertThat(fixture.registry.get("playline.auth").tag("result", "rejected").counter().count())
        .as("not the token's fault").isZero();
    assertThat(fixture.stored).isEmpty();
  }

  @Test
  void theConnectionClosesTokenExpiredTheMillisecondItsTokenAndTheGraceRunOut() {
    long expiresAtMs = fixture.time.millis() + 5_000;
    ServerFrame ok = open(fixture.tokens.issue(UID, expiresAtMs));
    assertThat(ok.getAuthOk().getExpiresAtMs()).isEqualTo(expiresAtMs);
    long closeAtMs = expiresAtMs + fixture.config.authExpiryGrace().toMillis();

    advance(Duration.ofMillis(closeAtMs - 1 - fixture.time.millis()));
    assertThat(transport.closedWith).as("open until the last millisecond of the grace").isNull();
    advance(Duration.ofMillis(1));
    assertThat(closedWith().getSeq()).isZero();
    assertThat(closedWith().getError().getCode()).isEqualTo(Code.TOKEN_EXPIRED);
    assertThat(fixture.push.registered).singleElement().satisfies(r -> assertThat(r.closed).isTrue());
  }

  @Test
  void aStoredSessionIsResumedWithItsIdentityAndExpiryWithoutAnIdentityCheck() {
    long expiresAtMs = fixture.time.millis() + 60_000;
    ConnectionIdentity stored = new ConnectionIdentity(UID, "s-1", Frames.DEVICE, "ios");
    fixture.stored.put("s-1", new StoredSession(stored, expiresAtMs, fixture.time.millis() - 1_000));
    session.start();
    receive(Frames.resume(3, "s-1", Frames.DEVICE));
    assertThat(transport.sent).singleElement().satisfies(f -> {
      assertThat(f.getSeq()).isEqualTo(3);
      assertThat(f.getAuthOk().getUid()).isEqualTo(UID);
      assertThat(f.getAuthOk().getSessionId()).isEqualTo("s-1");
      assertThat(f.getAuthOk().getExpiresAtMs()).as("the stored token's expiry").isEqualTo(expiresAtMs);
    });
    assertThat(session.identity()).as("the platform it was stored with").isEqualTo(stored);
    assertThat(fixture.tokens.checked).as("no identity check").isEmpty();
    assertThat(fixture.registry.get("playline.auth").tag("result", "resumed").counter().count()).isEqualTo(1);
  }

  @Test
  void aSessionRecordedByAnEarlierConnectionIsResumed() {
    String sessionId = open().getAuthOk().getSessionId();
    session.onTransportClosed();
    RecordingTransport again = new RecordingTransport(channel.eventLoop());
    StreamSession resumed = new StreamSession(again, fixture.parts, fixture.parts.eventWait());
    resumed.start();
    resumed.onFrame(new DecodedFrame.Frame(Frames.resume(3, sessionId, Frames.DEVICE)));
    assertThat(again.sent).singleElement().satisfies(f -> {
      assertThat(f.getSeq()).isEqualTo(3);
      assertThat(f.getAuthOk().getSessionId()).isEqualTo(sessionId);
    });
    assertThat(fixture.registry.get("playline.auth.identity.checks").counter().count()).as("the first auth's only")
        .isEqualTo(1);
    resumed.onTransportClosed();
  }

  @Test
  void aHeartbeatReachesTheWritePathAndIsAckedOnceWritten() {
    String sessionId = open().getAuthOk().getSessionId();
    receive(Frames.heartbeat(2, Frames.event(7, 1_000, fixture.time.millis())));
    assertThat(fixture.writes.submitted).singleElement().satisfies(w -> {
      assertThat(w.uid()).isEqualTo(UID);
      assertThat(w.records()).hasSize(1);
      assertThat(w.checkFirstToday()).as("the client echoed no day").isTrue();
      assertThat(w.sessionId()).isEqualTo(sessionId);
      assertThat(w.deviceId()).isEqualTo(Frames.DEVICE);
      assertThat(w.receivedNanos()).isEqualTo(fixture.time.nanoTime());
    });
    assertThat(transport.sent).as("no ack before the write").hasSize(1);
    assertThat(fixture.push.touched).as("the user's push entry kept fresh").containsExactly(UID);

    PendingWrite written = fixture.writes.submitted.get(0);
    FlagCalendar.Day today = fixture.calendar.dayOf(fixture.time.millis());
    written.callback().done(new WriteOutcome(false, new byte[] {WriteOutcome.CREATED}), true, today, null);
    channel.runPendingTasks();
    assertThat(transport.sent).hasSize(2);
    ServerFrame ack = transport.sent.get(1);
    assertThat(ack.getSeq()).isEqualTo(2);
    assertThat(ack.getHeartbeatAck().getFlagDate()).isEqualTo(today.iso());
    assertThat(ack.getHeartbeatAck().getFirstToday()).isTrue();
    assertThat(ack.getHeartbeatAck().getFirstViewList()).containsExactly(true);
    assertThat(fixture.writes.answered).containsExactly(written.receivedNanos());
  }

  @Test
  void aQueryOnANodeWithoutHistoryIsAnsweredUnavailableAndTheConnectionStaysOpen() {
    open();
    receive(Frames.progressQuery(2, Frames.video(7)));
    assertThat(transport.sent).hasSize(2);
    ServerFrame answer = transport.sent.get(1);
    assertThat(answer.getSeq()).isEqualTo(2);
    assertThat(answer.getError().getCode()).isEqualTo(Code.UNAVAILABLE);
    assertThat(answer.getError().getMessage()).isEqualTo("history queries are not served by this node");
    assertThat(transport.closedWith).isNull();
    receive(Frames.keepAlive(3));
    assertThat(transport.sent.get(2).hasHeartbeatAck()).as("the connection still serves").isTrue();
  }

  /**
   * Opens another connection of the test's user with a fresh token, into {@code answer}: its AuthOk,
   * or the error it was closed with. The caller closes it.
   */
  private StreamSession anotherConnection(RecordingTransport answer) {
    StreamSession another = new StreamSession(answer, fixture.parts, fixture.parts.eventWait());
    another.start();
    another.onFrame(new DecodedFrame.Frame(Frames.auth(1, fixture.token(UID))));
    return another;
  }

  /** What another connection of the test's user is answered; it is closed again. */
  private ServerFrame anotherConnection() {
    RecordingTransport other = new RecordingTransport(channel.eventLoop());
    anotherConnection(other).onTransportClosed();
    return other.closedWith != null ? other.closedWith : other.sent.get(0);
  }

  @Test
  void closingGivesBackTheUsersConnectionItsPushRegistrationAndItsTimers() {
    open(fixture.tokens.issue(UID, fixture.time.millis() + 5_000));
    receive(Frames.heartbeat(2, Frames.event(7, 1_000, fixture.time.millis())));
    PendingWrite inFlight = fixture.writes.submitted.get(0);
    assertThat(anotherConnection().getError().getCode()).as("the user's one connection is taken")
        .isEqualTo(Code.TOO_MANY_CONNECTIONS);
    assertThat(fixture.time.pending()).as("the idle and the expiry checks").isEqualTo(2);

    session.onTransportClosed();
    assertThat(fixture.push.registered).singleElement().satisfies(r -> assertThat(r.closed).isTrue());
    assertThat(fixture.registry.get("playline.connections.open").gauge().value()).isZero();
    assertThat(fixture.time.pending()).as("no timer of the closed connection left").isZero();
    inFlight.callback().done(new WriteOutcome(false, new byte[] {WriteOutcome.UPDATED}), false,
        fixture.calendar.dayOf(fixture.time.millis()), null);
    channel.runPendingTasks();
    assertThat(transport.sent).as("no ack once closed").hasSize(1);

    RecordingTransport next = new RecordingTransport(channel.eventLoop());
    StreamSession holding = anotherConnection(next);
    assertThat(next.sent).as("the user's place given back").singleElement()
        .satisfies(f -> assertThat(f.hasAuthOk()).isTrue());
    session.onTransportClosed();
    assertThat(anotherConnection().getError().getCode()).as("given back once: closing again releases nothing")
        .isEqualTo(Code.TOO_MANY_CONNECTIONS);
    holding.onTransportClosed();
  }

  @Test
  void theFirstFrameMustBeAuth() {
    session.start();
    receive(Frames.keepAlive(5));
    assertThat(closedWith().getSeq()).isEqualTo(5);
    assertThat(closedWith().getError().getCode()).isEqualTo(Code.UNAUTHENTICATED);
    assertThat(fixture.errors("UNAUTHENTICATED")).isEqualTo(1);
  }

  @Test
  void noAuthWithinTheAuthTimeoutCloses() {
    session.start();
    advance(fixture.config.authTimeout().minusMillis(1));
    assertThat(transport.closedWith).isNull();
    advance(Duration.ofMillis(1));
    assertThat(closedWith().getError().getCode()).isEqualTo(Code.AUTH_TIMEOUT);
  }

  @Test
  void anOpenConnectionWithoutFramesClosesAtTheIdleTimeout() {
    open();
    fixture.time.advance(fixture.config.idleTimeout().dividedBy(2));
    receive(Frames.keepAlive(2));
    advance(fixture.config.idleTimeout().dividedBy(2));
    assertThat(transport.closedWith).as("a frame moved the idle deadline").isNull();
    advance(fixture.config.idleTimeout());
    assertThat(closedWith().getError().getCode()).isEqualTo(Code.IDLE_TIMEOUT);
  }

  @Test
  void eventsSentWhileWaitingAreRefusedUndecoded() {
    open();
    while (fixture.budgets.takeEvents(UID, 1) == null) {
      // spend the user's burst
    }
    ClientFrame withEvents = Frames.heartbeat(2, Frames.event(7, 1_000, fixture.time.millis()));
    receive(withEvents);
    assertThat(transport.sent.get(1).getError().getCode()).as("over the budget").isEqualTo(Code.RATE_LIMITED);
    assertThat(wait.waiting()).isTrue();

    DecodedFrame decoded = decoder.decode(ByteBuffer.wrap(withEvents.toBuilder().setSeq(3).build().toByteArray()));
    assertThat(decoded).isEqualTo(new DecodedFrame.WaitedEvents(3));
    session.onFrame(decoded);
    ServerFrame refused = transport.sent.get(2);
    assertThat(refused.getSeq()).isEqualTo(3);
    assertThat(refused.getError().getCode()).isEqualTo(Code.RATE_LIMITED);
    assertThat(refused.getError().getRetryAfterMs()).isPositive();
    assertThat(fixture.registry.get("playline.frames.received").tag("type", "heartbeat").functionCounter().count())
        .as("counted as the heartbeat it is").isEqualTo(2);
    assertThat(fixture.writes.submitted).as("nothing reached the write path").isEmpty();

    receive(Frames.keepAlive(4));
    assertThat(transport.sent.get(3).hasHeartbeatAck()).as("a keep-alive is answered as usual").isTrue();
  }

  @Test
  void aBadFrameClosesWithItsCode() {
    open();
    session.onFrame(new DecodedFrame.Bad(Code.FRAME_TOO_LARGE, "frame larger than 1 bytes", false));
    assertThat(closedWith().getSeq()).isZero();
    assertThat(closedWith().getError().getCode()).isEqualTo(Code.FRAME_TOO_LARGE);
    assertThat(closedWith().getError().getMessage()).isEqualTo("frame larger than 1 bytes");
    assertThat(fixture.registry.get("playline.connections.open").gauge().value()).isZero();
  }
}
