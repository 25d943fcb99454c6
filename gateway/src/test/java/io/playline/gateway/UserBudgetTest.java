package io.playline.gateway;

import static io.playline.testing.Frames.auth;
import static io.playline.testing.Frames.clear;
import static io.playline.testing.Frames.delete;
import static io.playline.testing.Frames.event;
import static io.playline.testing.Frames.heartbeat;
import static io.playline.testing.Frames.video;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.playline.core.query.HistoryService;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.HistoryPage;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ItemStats;
import io.playline.proto.v1.PlayEvent;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.GrpcPlayerClient;
import io.playline.testing.ManualTime;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Per-user budgets across connections (issue 28): one user on several connections gets its events
 * per second and deletes per minute, answered RATE_LIMITED with retry_after_ms past them on open
 * connections, while another user is not slowed; one user churning connect+auth+close gets its
 * authentications per minute.
 */
@ExtendWith(RealRedisExtension.class)
class UserBudgetTest {
  private static final AtomicLong UIDS = new AtomicLong(28_000);
  private final List<WsPlayerClient> clients = new ArrayList<>();
  private TestGateway gateway;
  /** The node's clock: a budget refills when a test moves it, never while it waits. */
  private final ManualTime time = new ManualTime();

  @AfterEach
  void stop() {
    clients.forEach(WsPlayerClient::close);
    if (gateway != null) {
      gateway.close();
    }
  }

  @Test
  void oneUserOnManyConnectionsGetsItsEventBudgetAndAnotherUserIsUnaffected(RedisNamespace ns) throws Exception {
    gateway = new TestGateway(ns, Map.of("user.max.events.per.second", "2",
        "connection.max.frames.per.second", "1000", "user.max.refusals.before.close", "1000"), time);
    long flooder = UIDS.incrementAndGet();
    List<WsPlayerClient> floods = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      floods.add(authed(flooder, "device-" + i));
    }
    WsPlayerClient honest = authed(UIDS.incrementAndGet(), "phone");
    long now = time.millis();

    for (int seq = 2; seq < 32; seq++) {
      for (WsPlayerClient c : floods) {
        c.send(heartbeat(seq, event(seq, 1, now)));
      }
      if (seq % 10 == 0) {
        honest.send(heartbeat(seq, event(seq, 1, now)));
      }
    }
    int acked = 0;
    List<ServerFrame> refusals = new ArrayList<>();
    for (WsPlayerClient c : floods) {
      for (ServerFrame f : answers(c, 30)) {
        if (f.hasHeartbeatAck()) {
          acked++;
        } else {
          refusals.add(f);
        }
      }
    }

    // A full bucket (ten seconds' worth: 20), no time passing: 120 events sent.
    assertThat(acked).isEqualTo(20);
    assertThat(refusals).hasSize(120 - acked).allSatisfy(f -> {
      assertThat(f.getError().getCode()).isEqualTo(Code.RATE_LIMITED);
      assertThat(f.getError().getRetryAfterMs()).isBetween(1, 1000);
    });
    assertThat(answers(honest, 3)).allSatisfy(f -> assertThat(f.hasHeartbeatAck()).as("%s", f).isTrue());
    assertThat(floods).allSatisfy(c -> assertThat(c.closed).isNotDone());
    assertThat(gateway.counter("playline.user.budget.refusals", "budget", "events")).isEqualTo(120 - acked);

    // After retry_after_ms (at 2 events per second: half a second) the user is served again, on any of its connections.
    WsPlayerClient again = floods.get(0);
    time.advance(Duration.ofMillis(500));
    again.send(heartbeat(100, event(100, 1, now)));
    assertThat(answers(again, 1).get(0).hasHeartbeatAck()).isTrue();
  }

  @Test
  void aDeleteFloodIsRateLimitedBeforeItReachesTheHistoryService(RedisNamespace ns) throws Exception {
    ControlsSeen history = new ControlsSeen();
    gateway = new TestGateway(ns.redisUri(), false, ns.keyPrefix(), Map.of("user.max.deletes.per.minute", "5"), false,
        history, time);
    long uid = UIDS.incrementAndGet();
    WsPlayerClient a = authed(uid, "phone");
    WsPlayerClient b = authed(uid, "tablet");

    for (int seq = 2; seq < 6; seq++) {
      a.send(delete(seq, video(seq)));
      b.send(delete(seq, video(100 + seq)));
    }
    b.send(clear(6, Business.COMIC));
    List<ServerFrame> answers = new ArrayList<>(answers(a, 4));
    answers.addAll(answers(b, 5));

    assertThat(answers.stream().filter(ServerFrame::hasDone)).hasSize(5);
    assertThat(answers.stream().filter(ServerFrame::hasError)).hasSize(4).allSatisfy(f -> {
      assertThat(f.getError().getCode()).isEqualTo(Code.RATE_LIMITED);
      assertThat(f.getError().getRetryAfterMs()).isBetween(1, 60_000);
    });
    // Refused deletes never reached the history service (so never Redis).
    assertThat(history.items).hasValue(5);
    assertThat(gateway.counter("playline.user.budget.refusals", "budget", "deletes")).isEqualTo(4);
    assertThat(a.closed).isNotDone();
    assertThat(b.closed).isNotDone();
  }

  @Test
  void aWebSocketThatIgnoresRetryAfterIsClosedAfterTheNamedRefusalsAndOneThatWaitsIsNot(RedisNamespace ns)
      throws Exception {
    gateway = new TestGateway(ns, Map.of("user.max.events.per.second", "1", "user.max.refusals.before.close", "3"), time);
    WsPlayerClient ignoring = authed(UIDS.incrementAndGet(), "phone");
    WsPlayerClient waiting = authed(UIDS.incrementAndGet(), "phone");
    WsPlayerClient honest = authed(UIDS.incrementAndGet(), "phone");

    sendsAfterEachRetryAfterAndIsAcked(waiting::send, () -> answers(waiting, 1).get(0));
    refusedThenClosed(ignoring::send, () -> answers(ignoring, 1).get(0));
    assertThat(ignoring.awaitClose().code()).isEqualTo(4000 + Code.RATE_LIMITED.getNumber());

    assertThat(waiting.closed).isNotDone();
    for (int seq = 2; seq < 5; seq++) {
      honest.send(heartbeat(seq, event(seq, 1, time.millis())));
      assertThat(answers(honest, 1).get(0).hasHeartbeatAck()).isTrue();
    }
    assertThat(gateway.counter("playline.user.budget.closes", "budget", "events")).isEqualTo(1);
  }

  @Test
  void aGrpcStreamThatIgnoresRetryAfterEndsResourceExhausted(RedisNamespace ns) throws Exception {
    gateway = new TestGateway(ns, Map.of("user.max.events.per.second", "1", "user.max.refusals.before.close", "3"), time);
    try (GrpcPlayerClient stream = GrpcPlayerClient.connect(gateway.server.grpcAddress().getPort())) {
      stream.send(auth(1, TestGateway.token(UIDS.incrementAndGet())));
      assertThat(stream.next().hasAuthOk()).isTrue();

      refusedThenClosed(stream::send, stream::next);
      assertThat(stream.awaitEnd().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    }
    assertThat(gateway.counter("playline.user.budget.closes", "budget", "events")).isEqualTo(1);
  }

  /** Spends the user's whole bucket (ten events at 1/s), then sends a heartbeat at once after each refusal. */
  private void refusedThenClosed(Consumer<ClientFrame> send, Answer next) throws Exception {
    long now = time.millis();
    send.accept(tenEvents(2, now));
    assertThat(next.get().hasHeartbeatAck()).isTrue();
    // One refusal by the bucket, three while told to wait (user.max.refusals.before.close), then the close.
    for (int seq = 3; seq <= 7; seq++) {
      send.accept(heartbeat(seq, event(seq, 1, now)));
      ServerFrame refused = next.get();
      assertThat(refused.getSeq()).isEqualTo(seq);
      assertThat(refused.getError().getCode()).isEqualTo(Code.RATE_LIMITED);
      assertThat(refused.getError().getRetryAfterMs()).isBetween(1, 1000);
    }
  }

  /** Spends the bucket, then twice: refused, waits retry_after_ms, sends again and is acked. */
  private void sendsAfterEachRetryAfterAndIsAcked(Consumer<ClientFrame> send, Answer next) throws Exception {
    long now = time.millis();
    send.accept(tenEvents(2, now));
    assertThat(next.get().hasHeartbeatAck()).isTrue();
    long seq = 3;
    for (int round = 0; round < 2; round++) {
      send.accept(heartbeat(seq, event(seq, 1, now)));
      ServerFrame refused = next.get();
      assertThat(refused.getError().getCode()).as("%s", refused).isEqualTo(Code.RATE_LIMITED);
      time.advance(Duration.ofMillis(refused.getError().getRetryAfterMs()));
      send.accept(heartbeat(seq, event(seq, 1, now)));
      assertThat(next.get().hasHeartbeatAck()).isTrue();
      seq++;
    }
  }

  private static ClientFrame tenEvents(long seq, long now) {
    PlayEvent[] events = new PlayEvent[10];
    for (int i = 0; i < events.length; i++) {
      events[i] = event(1_000 + i, 1, now);
    }
    return heartbeat(seq, events);
  }

  /** The next answer of a stream under test. */
  private interface Answer {
    ServerFrame get() throws InterruptedException;
  }

  /** The history service of a node without HBase: counts the deletes and clears that reach it. */
  static final class ControlsSeen implements HistoryService {
    final AtomicInteger items = new AtomicInteger();

    @Override
    public CompletionStage<List<HistoryRecord>> progress(long uid, List<ItemKey> keys) {
      return CompletableFuture.completedFuture(List.of());
    }

    @Override
    public CompletionStage<List<List<HistoryRecord>>> progress(List<GetProgressRequest> requests) {
      return CompletableFuture.completedFuture(requests.stream().map(r -> List.<HistoryRecord>of()).toList());
    }

    @Override
    public CompletionStage<HistoryPage> list(long uid, List<Business> businesses, @Nullable Cursor after, int limit) {
      return CompletableFuture.completedFuture(HistoryPage.getDefaultInstance());
    }

    @Override
    public CompletionStage<Void> delete(long uid, List<ItemKey> keys) {
      items.addAndGet(keys.size());
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Void> clear(long uid, List<Business> businesses, boolean allBusinesses) {
      items.incrementAndGet();
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Boolean> setPaused(long uid, boolean paused) {
      return CompletableFuture.completedFuture(paused);
    }

    @Override
    public CompletionStage<Boolean> paused(long uid) {
      return CompletableFuture.completedFuture(false);
    }

    @Override
    public CompletionStage<List<ItemStats>> itemStats(List<ItemKey> keys) {
      return CompletableFuture.completedFuture(List.of());
    }
  }

  @Test
  void oneUserChurningConnectAuthCloseGetsItsAuthBurstAndAnotherUserAuthenticates(RedisNamespace ns)
      throws Exception {
    // The defaults: 60 a minute, 8 at once.
    gateway = new TestGateway(ns, Map.of("user.max.auths.per.minute", "60", "user.max.auths.burst", "8"), time);
    long churner = UIDS.incrementAndGet();
    for (int i = 0; i < 8; i++) {
      authed(churner, "phone").close();
    }
    WsPlayerClient refused = gateway.ws();
    clients.add(refused);
    refused.send(auth(1, TestGateway.token(churner), "phone", "web"));
    // Answered after user.auth.refusal.hold (500 ms), to the millisecond.
    Awaitility.await().atMost(Duration.ofSeconds(10))
        .until(() -> gateway.gauge("playline.user.auth.refusals.held") == 1);
    time.advance(Duration.ofMillis(499));
    assertThat(refused.closed).as("held").isNotDone();
    time.advance(Duration.ofMillis(1));
    ServerFrame answer = refused.next();
    assertThat(answer.getError().getCode()).as("%s", answer).isEqualTo(Code.RATE_LIMITED);
    // One token per second regained: the wait is up to that, never zero.
    assertThat(answer.getError().getRetryAfterMs()).isBetween(1, 1_000);
    assertThat(refused.awaitClose().code()).isEqualTo(4000 + Code.RATE_LIMITED.getNumber());
    assertThat(gateway.counter("playline.user.budget.refusals", "budget", "auths")).isEqualTo(1);
    authed(UIDS.incrementAndGet(), "phone");
  }

  @Test
  void anAuthenticationOverItsUsersBudgetIsHeldBeforeItsAnswerWhileOtherUsersAreServedAtOnce(RedisNamespace ns)
      throws Exception {
    // A hold longer than any wait: the answer then comes at retry_after_ms (up to 20 s), so the held
    // connection is seen held. One place: the second refusal is answered at once.
    gateway = new TestGateway(ns, Map.of("user.max.auths.per.minute", "3", "user.max.auths.burst", "3",
        "user.auth.refusal.hold", "1m", "user.auth.refusal.hold.max.connections", "1"), time);
    long churner = UIDS.incrementAndGet();
    for (int i = 0; i < 3; i++) {
      authed(churner, "phone").close();
    }
    WsPlayerClient held = gateway.ws();
    clients.add(held);
    held.send(auth(1, TestGateway.token(churner), "phone", "web"));
    Awaitility.await().atMost(Duration.ofSeconds(10))
        .until(() -> gateway.gauge("playline.user.auth.refusals.held") == 1);
    assertThat(gateway.counter("playline.user.budget.refusals", "budget", "auths")).isEqualTo(1);
    assertThat(held.closed).as("held, not answered").isNotDone();

    authed(UIDS.incrementAndGet(), "phone");
    WsPlayerClient atOnce = gateway.ws();
    clients.add(atOnce);
    atOnce.send(auth(1, TestGateway.token(churner), "tablet", "web"));
    assertThat(atOnce.next().getError().getCode()).isEqualTo(Code.RATE_LIMITED);
    assertThat(atOnce.awaitClose().code()).isEqualTo(4000 + Code.RATE_LIMITED.getNumber());
    assertThat(gateway.counter("playline.user.auth.refusals.unheld")).isEqualTo(1);
    assertThat(held.closed).as("still held").isNotDone();

    held.close();
    Awaitility.await().atMost(Duration.ofSeconds(10))
        .until(() -> gateway.gauge("playline.user.auth.refusals.held") == 0);
  }

  private WsPlayerClient authed(long uid, String device) throws Exception {
    return authed(gateway, clients, uid, device);
  }

  /** A connection to {@code node} (closed with {@code clients}) authenticated as {@code uid} on {@code device}. */
  static WsPlayerClient authed(TestGateway node, List<WsPlayerClient> clients, long uid, String device)
      throws Exception {
    WsPlayerClient c = node.ws();
    clients.add(c);
    c.send(auth(1, TestGateway.token(uid), device, "web"));
    ServerFrame answer = c.next();
    assertThat(answer.hasAuthOk()).as("%s", answer).isTrue();
    return c;
  }

  /** The next {@code n} answers to frames (pushes, seq 0, skipped). */
  static List<ServerFrame> answers(WsPlayerClient c, int n) throws InterruptedException {
    List<ServerFrame> out = new ArrayList<>();
    while (out.size() < n) {
      ServerFrame f = c.next();
      if (f.getSeq() != 0) {
        out.add(f);
      }
    }
    return out;
  }
}
