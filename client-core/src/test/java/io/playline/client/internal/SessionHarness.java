package io.playline.client.internal;

import io.playline.client.Ack;
import io.playline.client.ConnectionState;
import io.playline.client.FlagStore;
import io.playline.client.PlaylineException;
import io.playline.client.PlaylineListener;
import io.playline.proto.lite.v1.AuthOk;
import io.playline.proto.lite.v1.Business;
import io.playline.proto.lite.v1.Error;
import io.playline.proto.lite.v1.Error.Code;
import io.playline.proto.lite.v1.HeartbeatAck;
import io.playline.proto.lite.v1.HistoryRecord;
import io.playline.proto.lite.v1.PlayEvent;
import io.playline.proto.lite.v1.Reconnect;
import io.playline.proto.lite.v1.ServerFrame;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * A {@link ClientSession} on a {@link ManualLoop} and a {@link FakeTransport}, with a recording
 * listener: the unit-level view of the session's behaviour, with exact timing.
 */
final class SessionHarness implements PlaylineListener {
  static final long BASE_MS = 100;
  static final long CAP_MS = 1_000;

  record State(ConnectionState state, @Nullable Throwable cause) {}

  final ManualLoop loop = new ManualLoop();
  final FakeTransport transport = new FakeTransport(loop);
  final AtomicInteger tokenCalls = new AtomicInteger();
  final List<State> states = new CopyOnWriteArrayList<>();
  final List<Ack> acks = new CopyOnWriteArrayList<>();
  final List<String> firstTodays = new CopyOnWriteArrayList<>();
  final List<HistoryRecord> syncs = new CopyOnWriteArrayList<>();
  final List<PlaylineException> errors = new CopyOnWriteArrayList<>();
  final FlagStore flags;
  final ClientCounters counters = new ClientCounters();
  final ClientSession session;

  SessionHarness(DoubleSupplier random, int maxAttempts, int maxUnacked, FlagStore flags) {
    this.flags = flags;
    ClientConfig config = new ClientConfig(List.of(new ClientConfig.Endpoint("127.0.0.1", 8080)),
        "/v1/stream",
        () -> CompletableFuture.completedFuture("tok-" + tokenCalls.incrementAndGet()), "phone", "android", flags,
        Duration.ofMillis(BASE_MS), Duration.ofMillis(CAP_MS), maxAttempts, maxUnacked, 100, Duration.ofSeconds(5),
        Duration.ofSeconds(30), Duration.ofSeconds(5), List.of(this), null, Clock.systemUTC(), random, null,
        UnaryOperator.identity());
    session = new ClientSession(config, loop, transport, counters);
  }

  SessionHarness() {
    this(() -> 0.5, Integer.MAX_VALUE, 1_000, FlagStore.inMemory());
  }

  void start() {
    session.start();
    loop.runDue();
  }

  /** Opens the newest connection, answers its Auth with AuthOk and returns it. */
  FakeTransport.FakeConnection connect(long uid, String sessionId, int intervalMs, String flagDate) {
    FakeTransport.FakeConnection c = transport.last();
    c.open();
    long authSeq = c.lastSent().getSeq();
    c.receive(ServerFrame.newBuilder().setSeq(authSeq).setAuthOk(AuthOk.newBuilder().setUid(uid)
        .setSessionId(sessionId).setHeartbeatIntervalMs(intervalMs).setFlagDate(flagDate)).build());
    return c;
  }

  void report(long oid, long progressMs, long eventTimeMs) {
    session.report(event(oid, progressMs, eventTimeMs));
    loop.runDue();
  }

  static PlayEvent event(long oid, long progressMs, long eventTimeMs) {
    return PlayEvent.newBuilder().setBusiness(Business.VIDEO).setOid(oid).setProgressMs(progressMs)
        .setDurationMs(600_000).setEventTimeMs(eventTimeMs).build();
  }

  static ServerFrame ack(long seq, String flagDate, boolean firstToday, Boolean... firstView) {
    return ServerFrame.newBuilder().setSeq(seq).setHeartbeatAck(HeartbeatAck.newBuilder().setFlagDate(flagDate)
        .setFirstToday(firstToday).addAllFirstView(List.of(firstView))).build();
  }

  static ServerFrame error(long seq, Code code, String message) {
    return ServerFrame.newBuilder().setSeq(seq).setError(Error.newBuilder().setCode(code).setMessage(message)).build();
  }

  static ServerFrame reconnect(int afterMs) {
    return ServerFrame.newBuilder()
        .setReconnect(Reconnect.newBuilder().setAfterMs(afterMs).setReason("draining")).build();
  }

  @Override
  public void onStateChanged(ConnectionState state, @Nullable Throwable cause) {
    states.add(new State(state, cause));
  }

  @Override
  public void onAck(Ack ack) {
    acks.add(ack);
  }

  @Override
  public void onFirstToday(String flagDate) {
    firstTodays.add(flagDate);
  }

  @Override
  public void onProgressSync(HistoryRecord record) {
    syncs.add(record);
  }

  @Override
  public void onError(PlaylineException error) {
    errors.add(error);
  }
}
