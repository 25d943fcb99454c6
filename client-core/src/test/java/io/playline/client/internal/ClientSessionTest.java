package io.playline.client.internal;

import static io.playline.client.internal.SessionHarness.ack;
import static io.playline.client.internal.SessionHarness.error;
import static io.playline.client.internal.SessionHarness.reconnect;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.playline.client.ConnectionState;
import io.playline.client.FlagStore;
import io.playline.client.PlaylineException;
import io.playline.proto.lite.v1.Auth;
import io.playline.proto.lite.v1.ClientFrame;
import io.playline.proto.lite.v1.Error.Code;
import io.playline.proto.lite.v1.Heartbeat;
import io.playline.proto.lite.v1.HistoryRecord;
import io.playline.proto.lite.v1.PlayEvent;
import io.playline.proto.lite.v1.ProgressQuery;
import io.playline.proto.lite.v1.ProgressResult;
import io.playline.proto.lite.v1.ServerFrame;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The session's protocol behaviour, transport-free and with exact timing (a manual loop). */
class ClientSessionTest {
  private static final long T = 1_700_000_000_000L;

  private static Heartbeat heartbeat(ClientFrame f) {
    assertThat(f.hasHeartbeat()).as("a heartbeat, got %s", f).isTrue();
    return f.getHeartbeat();
  }

  private static List<Long> oids(Heartbeat hb) {
    return hb.getEventsList().stream().map(PlayEvent::getOid).toList();
  }

  @Test
  void authenticatesWithATokenOnceThenResumesWithTheSessionId() {
    SessionHarness h = new SessionHarness();
    h.start();
    FakeTransport.FakeConnection first = h.connect(7, "session-1", 1_000, "");
    Auth auth = first.sent.get(0).getAuth();
    assertThat(auth.getToken()).isEqualTo("tok-1");
    assertThat(auth.getSessionId()).isEmpty();
    assertThat(auth.getDeviceId()).isEqualTo("phone");
    assertThat(h.session.state()).isEqualTo(ConnectionState.CONNECTED);

    first.drop(new IOException("connection reset"));
    assertThat(h.session.state()).isEqualTo(ConnectionState.RECONNECTING);
    h.loop.advance(SessionHarness.BASE_MS); // full jitter, retry 0: at most base
    FakeTransport.FakeConnection second = h.connect(7, "session-1", 1_000, "");
    Auth resume = second.sent.get(0).getAuth();
    assertThat(resume.getSessionId()).isEqualTo("session-1");
    assertThat(resume.getToken()).isEmpty();
    assertThat(h.tokenCalls).hasValue(1);
    assertThat(h.counters.snapshot().sessionResumes()).isEqualTo(1);
    assertThat(h.states).extracting(SessionHarness.State::state).containsExactly(ConnectionState.CONNECTING,
        ConnectionState.CONNECTED, ConnectionState.RECONNECTING, ConnectionState.CONNECTED);
  }

  @Test
  void expiredSessionFallsBackToAFreshTokenAtOnce() {
    SessionHarness h = new SessionHarness();
    h.start();
    h.connect(7, "session-1", 1_000, "").drop(null);
    h.loop.advance(SessionHarness.BASE_MS);
    FakeTransport.FakeConnection resumed = h.transport.last();
    resumed.open();
    resumed.receive(error(resumed.lastSent().getSeq(), Code.SESSION_EXPIRED, "session expired"));
    assertThat(resumed.closeRequested).isTrue();
    assertThat(h.transport.connections).hasSize(3); // no backoff wait: straight back with a token
    FakeTransport.FakeConnection fresh = h.transport.last();
    fresh.open();
    assertThat(fresh.lastSent().getAuth().getToken()).isEqualTo("tok-2");
    assertThat(fresh.lastSent().getAuth().getSessionId()).isEmpty();
    assertThat(h.errors).extracting(PlaylineException::code).containsExactly(Code.SESSION_EXPIRED);
  }

  @Test
  void heartbeatsCarryTheLatestReportPerItemAndEchoTheFlagDate() {
    SessionHarness h = new SessionHarness();
    h.start();
    FakeTransport.FakeConnection c = h.connect(7, "s", 1_000, "");
    h.report(10, 1_000, T);
    h.report(10, 2_000, T + 1);
    h.report(11, 500, T + 1);
    h.report(10, 1_500, T); // older than what is held: ignored
    h.loop.advance(1_000);
    Heartbeat first = heartbeat(c.lastSent());
    assertThat(first.getEventsList()).extracting(PlayEvent::getOid, PlayEvent::getProgressMs)
        .containsExactly(tuple(10L, 2_000L), tuple(11L, 500L));
    assertThat(first.getFlagDate()).isEmpty();
    c.receive(ack(c.lastSent().getSeq(), "2025-03-01", true, true, false));
    assertThat(h.firstTodays).containsExactly("2025-03-01");
    assertThat(h.flags.load(7)).isEqualTo("2025-03-01");
    assertThat(h.acks.get(0).events()).extracting(a -> a.firstView()).containsExactly(true, false);

    h.loop.advance(1_000);
    Heartbeat keepAlive = heartbeat(c.lastSent());
    assertThat(keepAlive.getEventsList()).isEmpty();
    assertThat(keepAlive.getFlagDate()).isEqualTo("2025-03-01");
    c.receive(ack(c.lastSent().getSeq(), "2025-03-01", true)); // a second "first" the same day is not told twice
    assertThat(h.firstTodays).hasSize(1);

    c.drop(null);
    h.loop.advance(SessionHarness.BASE_MS);
    h.transport.last().open();
    assertThat(h.transport.last().lastSent().getAuth().getFlagDate()).isEqualTo("2025-03-01");
  }

  @Test
  void ackReleasesOnlyTheVersionsItCarried() {
    SessionHarness h = new SessionHarness();
    h.start();
    FakeTransport.FakeConnection c = h.connect(7, "s", 1_000, "");
    h.report(10, 1_000, T);
    h.loop.advance(1_000);
    long firstSeq = c.lastSent().getSeq();
    h.report(10, 9_000, T + 5); // newer report while the first is in flight
    c.receive(ack(firstSeq, "2025-03-01", false, false));
    assertThat(h.counters.snapshot().eventsAcked()).isZero();
    h.loop.advance(1_000);
    Heartbeat next = heartbeat(c.lastSent());
    assertThat(next.getEvents(0).getProgressMs()).isEqualTo(9_000);
    c.receive(ack(c.lastSent().getSeq(), "2025-03-01", false, false));
    assertThat(h.counters.snapshot().eventsAcked()).isEqualTo(1);
    h.loop.advance(1_000);
    assertThat(heartbeat(c.lastSent()).getEventsList()).isEmpty();
  }

  @Test
  void unackedEventsAreResentRightAfterReconnecting() {
    SessionHarness h = new SessionHarness();
    h.start();
    FakeTransport.FakeConnection c = h.connect(7, "s", 1_000, "");
    h.report(10, 1_000, T);
    h.report(11, 2_000, T);
    h.loop.advance(1_000);
    assertThat(oids(heartbeat(c.lastSent()))).containsExactly(10L, 11L);
    c.drop(new IOException("reset"));
    h.report(12, 3_000, T);
    h.loop.advance(SessionHarness.BASE_MS);
    FakeTransport.FakeConnection again = h.connect(7, "s", 1_000, "");
    assertThat(oids(heartbeat(again.lastSent()))).containsExactly(10L, 11L, 12L); // sent with AuthOk, no tick needed
    assertThat(h.counters.snapshot().eventsResent()).isEqualTo(2);
  }

  @Test
  void oldestReportsAreDroppedBeyondMaxUnacked() {
    SessionHarness h = new SessionHarness(() -> 0.5, Integer.MAX_VALUE, 2, FlagStore.inMemory());
    h.start();
    FakeTransport.FakeConnection c = h.connect(7, "s", 1_000, "");
    h.report(10, 1, T);
    h.report(11, 1, T);
    h.report(12, 1, T);
    h.loop.advance(1_000);
    assertThat(oids(heartbeat(c.lastSent()))).containsExactly(11L, 12L);
    assertThat(h.counters.snapshot().eventsDropped()).isEqualTo(1);
  }

  @Test
  void reconnectWaitsForInFlightAnswersThenHonoursAfterMs() {
    SessionHarness h = new SessionHarness(); // random 0.5: jitter = base / 2
    h.start();
    FakeTransport.FakeConnection c = h.connect(7, "s", 1_000, "");
    h.report(10, 1, T);
    h.loop.advance(1_000);
    long inFlight = c.lastSent().getSeq();
    c.receive(reconnect(3_000));
    assertThat(c.closeRequested).as("waits for the heartbeat in flight").isFalse();
    h.loop.advance(200);
    c.receive(ack(inFlight, "2025-03-01", false, true));
    assertThat(c.closeRequested).isTrue();
    assertThat(h.session.state()).isEqualTo(ConnectionState.RECONNECTING);
    h.loop.advance(3_000 + SessionHarness.BASE_MS / 2 - 200 - 1);
    assertThat(h.transport.connections).hasSize(1);
    h.loop.advance(1);
    assertThat(h.transport.connections).hasSize(2);
    h.transport.last().open();
    assertThat(h.transport.last().lastSent().getAuth().getSessionId()).isEqualTo("s");
  }

  @Test
  void failedAttemptsBackOffExponentiallyToTheCapThenGiveUp() {
    SessionHarness h = new SessionHarness(() -> 1.0, 6, 1_000, FlagStore.inMemory()); // always the ceiling
    h.start();
    List<Long> delays = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      long failedAt = h.loop.nowMs();
      int before = h.transport.connections.size();
      h.transport.last().drop(new IOException("connection refused"));
      h.loop.advance(PLENTY_MS);
      if (h.transport.connections.size() > before) {
        delays.add(h.transport.last().openedAtMs - failedAt);
      }
    }
    // Retry n after n consecutive failures waits min(cap, base * 2^n): 200, 400, 800, then the cap.
    assertThat(delays).containsExactly(200L, 400L, 800L, 1_000L, 1_000L);
    assertThat(h.transport.connections).hasSize(6);
    assertThat(h.session.state()).isEqualTo(ConnectionState.CLOSED);
    SessionHarness.State last = h.states.get(h.states.size() - 1);
    assertThat(last.state()).isEqualTo(ConnectionState.CLOSED);
    assertThat(last.cause()).hasMessageContaining("connection refused");
    assertThat(h.session.terminated()).isDone();
  }

  private static final long PLENTY_MS = 4_000;

  @Test
  void queriesAreMatchedBySeqAndAnErrorFailsOnlyItsOwnFuture() {
    SessionHarness h = new SessionHarness();
    h.start();
    CompletableFuture<List<HistoryRecord>> early = progress(h); // before connecting: queued
    FakeTransport.FakeConnection c = h.connect(7, "s", 1_000, "");
    long earlySeq = c.lastSent().getSeq(); // sent right after AuthOk
    assertThat(c.lastSent().hasProgressQuery()).isTrue();
    CompletableFuture<List<HistoryRecord>> second = progress(h);
    long secondSeq = c.lastSent().getSeq();
    HistoryRecord record = HistoryRecord.newBuilder().setUid(7).setOid(10).setProgressMs(42).build();
    c.receive(ServerFrame.newBuilder().setSeq(secondSeq)
        .setProgress(ProgressResult.newBuilder().addRecords(record)).build()); // answers out of order
    c.receive(error(earlySeq, Code.UNAVAILABLE, "progress_query is not served by this build yet"));
    assertThat(second).isCompletedWithValue(List.of(record));
    assertThat(early).isCompletedExceptionally();
    assertThat(early.handle((v, e) -> ((PlaylineException) e).code()).join()).isEqualTo(Code.UNAVAILABLE);
    assertThat(h.errors).isEmpty();
    assertThat(h.session.state()).isEqualTo(ConnectionState.CONNECTED);

    CompletableFuture<List<HistoryRecord>> lost = progress(h);
    c.drop(null);
    assertThat(lost.handle((v, e) -> ((PlaylineException) e).code()).join()).isEqualTo(Code.UNAVAILABLE);
    CompletableFuture<List<HistoryRecord>> unanswered = progress(h);
    h.loop.advance(30_000);
    assertThat(unanswered.handle((v, e) -> e.getMessage()).join()).contains("no answer within 30000 ms");
  }

  private static CompletableFuture<List<HistoryRecord>> progress(SessionHarness h) {
    CompletableFuture<List<HistoryRecord>> f = new CompletableFuture<>();
    h.session.request(ClientFrame.newBuilder().setProgressQuery(ProgressQuery.getDefaultInstance()),
        ServerFrame.BodyCase.PROGRESS, s -> s.getProgress().getRecordsList(), f);
    h.loop.runDue();
    return f;
  }

  @Test
  void flushSendsAtOnceAndCompletesWhenEverythingReportedIsAcked() {
    SessionHarness h = new SessionHarness();
    h.start();
    FakeTransport.FakeConnection c = h.connect(7, "s", 15_000, "");
    h.report(10, 1, T);
    h.report(11, 1, T);
    CompletableFuture<Void> flushed = new CompletableFuture<>();
    h.session.flush(flushed);
    h.loop.runDue();
    assertThat(oids(heartbeat(c.lastSent()))).containsExactly(10L, 11L);
    assertThat(flushed).isNotDone();
    c.receive(ack(c.lastSent().getSeq(), "2025-03-01", false, true, true));
    assertThat(flushed).isCompleted();
  }

  @Test
  void closeSendsTheLastReportsWaitsForTheAckThenCloses() {
    SessionHarness h = new SessionHarness();
    h.start();
    FakeTransport.FakeConnection c = h.connect(7, "s", 15_000, "");
    h.report(10, 1, T);
    CompletableFuture<Void> pendingFlush = new CompletableFuture<>();
    h.session.close();
    h.loop.runDue();
    h.session.flush(pendingFlush);
    assertThat(oids(heartbeat(c.lastSent()))).containsExactly(10L);
    assertThat(c.closeRequested).isFalse();
    c.receive(ack(c.lastSent().getSeq(), "2025-03-01", false, true));
    assertThat(pendingFlush).isCompleted();
    assertThat(c.closeRequested).isTrue();
    assertThat(h.session.state()).isEqualTo(ConnectionState.CLOSED);
    assertThat(h.states.get(h.states.size() - 1).cause()).isNull();
    assertThat(h.session.terminated()).isCompleted();
  }

  @Test
  void silentGatewayIsAbandonedAfterTheAckTimeout() {
    SessionHarness h = new SessionHarness();
    h.start();
    FakeTransport.FakeConnection c = h.connect(7, "s", 1_000, "");
    h.loop.advance(1_000); // keep-alive in flight, never answered
    h.loop.advance(2 * 1_000 + 5_000 + 1_000);
    assertThat(c.closeRequested).isTrue();
    assertThat(h.states.get(h.states.size() - 1).cause()).hasMessageContaining("no answer to a heartbeat");
  }

  /** Connects with an AuthOk whose credential expires {@code lifetimeMs} after its server time. */
  private static FakeTransport.FakeConnection connectExpiring(SessionHarness h, long lifetimeMs) {
    FakeTransport.FakeConnection c = h.transport.last();
    c.open();
    c.receive(ServerFrame.newBuilder().setSeq(c.lastSent().getSeq()).setAuthOk(io.playline.proto.lite.v1.AuthOk.newBuilder()
        .setUid(7).setSessionId("s").setHeartbeatIntervalMs(60_000).setServerTimeMs(T)
        .setExpiresAtMs(T + lifetimeMs)).build());
    return c;
  }

  private static List<ClientFrame> refreshes(FakeTransport.FakeConnection c) {
    return c.sent.stream().filter(ClientFrame::hasRefresh).toList();
  }

  @Test
  void refreshesTheTokenBeforeItExpiresAndAgainAfterEachRefreshOk() {
    SessionHarness h = new SessionHarness(); // random 0.5: at 82.5 % of the time left
    h.start();
    FakeTransport.FakeConnection c = connectExpiring(h, 10_000);
    h.loop.advance(8_249);
    assertThat(refreshes(c)).isEmpty();
    h.loop.advance(1);
    assertThat(refreshes(c)).hasSize(1);
    ClientFrame refresh = refreshes(c).get(0);
    assertThat(refresh.getRefresh().getToken()).isEqualTo("tok-2");
    c.receive(ServerFrame.newBuilder().setSeq(refresh.getSeq())
        .setRefreshOk(io.playline.proto.lite.v1.RefreshOk.newBuilder().setExpiresAtMs(T + 8_250 + 20_000)).build());
    assertThat(h.counters.snapshot().tokenRefreshes()).isEqualTo(1);
    h.loop.advance(16_499);
    assertThat(refreshes(c)).hasSize(1);
    h.loop.advance(1);
    assertThat(refreshes(c)).hasSize(2);
    assertThat(refreshes(c).get(1).getRefresh().getToken()).isEqualTo("tok-3");
    assertThat(h.session.state()).isEqualTo(ConnectionState.CONNECTED);
    assertThat(h.transport.connections).hasSize(1);
  }

  @Test
  void aCredentialThatDoesNotExpireIsNeverRefreshed() {
    SessionHarness h = new SessionHarness();
    h.start();
    FakeTransport.FakeConnection c = h.connect(7, "s", 60_000, ""); // expires_at_ms 0
    h.loop.advance(24 * 3_600_000L);
    assertThat(refreshes(c)).isEmpty();
    assertThat(h.tokenCalls).hasValue(1);
  }

  @Test
  void anUnavailableIdentityServiceIsRetriedSooner() {
    SessionHarness h = new SessionHarness();
    h.start();
    FakeTransport.FakeConnection c = connectExpiring(h, 10_000);
    h.loop.advance(8_250);
    c.receive(error(refreshes(c).get(0).getSeq(), Code.UNAVAILABLE, "identity service unavailable"));
    h.loop.advance(436); // a quarter of the 1 750 ms left is 437
    assertThat(refreshes(c)).hasSize(1);
    h.loop.advance(1);
    assertThat(refreshes(c)).hasSize(2);
    assertThat(c.closeRequested).isFalse();
  }

  @Test
  void aRefusedRefreshOrAnExpiredTokenReconnectsWithAFreshTokenNotTheSession() {
    SessionHarness h = new SessionHarness();
    h.start();
    FakeTransport.FakeConnection c = connectExpiring(h, 10_000);
    h.loop.advance(8_250);
    c.receive(error(refreshes(c).get(0).getSeq(), Code.UNAUTHENTICATED, "refresh refused: token expired"));
    c.drop(null); // the gateway closes after refusing
    h.loop.advance(SessionHarness.CAP_MS);
    FakeTransport.FakeConnection next = h.transport.last();
    next.open();
    assertThat(next.lastSent().getAuth().getSessionId()).isEmpty();
    assertThat(next.lastSent().getAuth().getToken()).isEqualTo("tok-3");

    FakeTransport.FakeConnection again = connectExpiringAfterAuth(h, next, 10_000);
    again.receive(error(0, Code.TOKEN_EXPIRED, "token expired"));
    again.drop(null);
    h.loop.advance(SessionHarness.CAP_MS);
    FakeTransport.FakeConnection last = h.transport.last();
    last.open();
    assertThat(last.lastSent().getAuth().getSessionId()).isEmpty();
    assertThat(last.lastSent().getAuth().getToken()).isNotEmpty();
  }

  private static FakeTransport.FakeConnection connectExpiringAfterAuth(SessionHarness h, FakeTransport.FakeConnection c,
      long lifetimeMs) {
    c.receive(ServerFrame.newBuilder().setSeq(c.lastSent().getSeq()).setAuthOk(io.playline.proto.lite.v1.AuthOk.newBuilder()
        .setUid(7).setSessionId("s2").setHeartbeatIntervalMs(60_000).setServerTimeMs(T)
        .setExpiresAtMs(T + lifetimeMs)).build());
    return c;
  }
}
