package io.playline.gateway;

import static io.playline.gateway.UserBudgetTest.answers;
import static io.playline.gateway.UserBudgetTest.authed;
import static io.playline.testing.Frames.delete;
import static io.playline.testing.Frames.event;
import static io.playline.testing.Frames.heartbeat;
import static io.playline.testing.Frames.video;
import static org.assertj.core.api.Assertions.assertThat;

import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.PlayEvent;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One account's budgets hold across gateway nodes (issue 28): two real nodes on one Redis, one uid
 * flooding both, and together they grant about one budget, not one each. The floods carry events
 * older than what is stored, which move no progress: no push is routed, so the nodes learn of each
 * other only through what the budgets themselves hear of the push registry.
 */
@ExtendWith(RealRedisExtension.class)
class CrossNodeUserBudgetTest {
  private static final AtomicLong UIDS = new AtomicLong(128_000);
  private static final int EVENTS_PER_SECOND = 10;
  /** The events bucket: ten seconds' worth. */
  private static final int BURST = 10 * EVENTS_PER_SECOND;
  private static final int FRAMES = 20;
  private static final int EVENTS_PER_FRAME = 10;

  private final List<WsPlayerClient> clients = new ArrayList<>();
  private final List<TestGateway> nodes = new ArrayList<>();
  private final long now = System.currentTimeMillis();

  @AfterEach
  void stop() {
    clients.forEach(WsPlayerClient::close);
    nodes.forEach(TestGateway::close);
  }

  /** With the lookup cache on (the default) and off: either way the nodes learn of each other. */
  @ParameterizedTest
  @ValueSource(strings = {"30s", "0s"})
  void oneUserFloodingTwoNodesGetsOneEventBudgetBetweenThem(String lookupCache, RedisNamespace ns) throws Exception {
    TestGateway a = node(ns, "node-a", lookupCache, null, 120);
    TestGateway b = node(ns, "node-b", lookupCache, null, 120);
    long uid = UIDS.incrementAndGet();
    WsPlayerClient onA = authed(a, clients, uid, "phone");
    onA.send(tenEvents(2, now));
    assertThat(answers(onA, 1).get(0).hasHeartbeatAck()).isTrue();
    WsPlayerClient onB = authed(b, clients, uid, "tablet");
    bothNodesKnowTheOther(a, b, onB);

    long start = System.nanoTime();
    for (int seq = 100; seq < 100 + FRAMES; seq++) {
      onA.send(tenEvents(seq, now - 60_000));
      onB.send(tenEvents(seq, now - 60_000));
    }
    List<ServerFrame> answers = new ArrayList<>(answers(onA, FRAMES));
    answers.addAll(answers(onB, FRAMES));
    double seconds = (System.nanoTime() - start) / 1e9;
    long acked = answers.stream().filter(ServerFrame::hasHeartbeatAck).count() * EVENTS_PER_FRAME;

    // Each node charges two tokens an event, so together they grant one bucket plus one refill
    // rate; alone each would grant its own bucket (nearly 2 × BURST here), however slow the test.
    assertThat(acked).isBetween((long) BURST / 2, (long) Math.floor(BURST + EVENTS_PER_SECOND * seconds) + 1);
    assertThat(answers.stream().filter(ServerFrame::hasError)).isNotEmpty().allSatisfy(f -> {
      assertThat(f.getError().getCode()).isEqualTo(Code.RATE_LIMITED);
      assertThat(f.getError().getRetryAfterMs()).isPositive();
    });
    assertThat(answers).anySatisfy(f -> assertThat(f.getError().getMessage()).contains("across the 2 nodes"));
  }

  @Test
  void oneUserDeletingOnTwoNodesGetsOneDeleteBudgetBetweenThem(RedisNamespace ns) throws Exception {
    UserBudgetTest.ControlsSeen history = new UserBudgetTest.ControlsSeen();
    int perMinute = 20;
    TestGateway a = node(ns, "node-a", "30s", history, perMinute);
    TestGateway b = node(ns, "node-b", "30s", history, perMinute);
    long uid = UIDS.incrementAndGet();
    WsPlayerClient onA = authed(a, clients, uid, "phone");
    WsPlayerClient onB = authed(b, clients, uid, "tablet");
    bothNodesKnowTheOther(a, b, onB);

    long start = System.nanoTime();
    for (int seq = 100; seq < 100 + perMinute; seq++) {
      onA.send(delete(seq, video(seq)));
      onB.send(delete(seq, video(1_000 + seq)));
    }
    answers(onA, perMinute);
    answers(onB, perMinute);
    double minutes = (System.nanoTime() - start) / 60e9;

    // Alone each node would let its whole minute through: 2 × perMinute.
    assertThat(history.items.get()).isBetween(perMinute / 2, (int) Math.floor(perMinute + perMinute * minutes) + 1);
    double refused = a.counter("playline.user.budget.refusals", "budget", "deletes")
        + b.counter("playline.user.budget.refusals", "budget", "deletes");
    assertThat(refused).isEqualTo(2 * perMinute - history.items.get());
  }

  /**
   * Waits until node {@code a}, which the user reached first, has heard node {@code b} join the
   * user's push registry, then checks that node {@code b} charges the user for node {@code a} too:
   * b read the registry when it joined, before it announced the join, so its first probe (an event
   * older than the stored one) is already charged for both nodes.
   */
  private void bothNodesKnowTheOther(TestGateway a, TestGateway b, WsPlayerClient onB) throws Exception {
    Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
        .until(() -> a.counter("playline.push.registry.joins", "direction", "received") >= 1);
    onB.send(heartbeat(2, event(1, 1, now - 60_000)));
    assertThat(answers(onB, 1).get(0).hasHeartbeatAck()).isTrue();
    assertThat(b.counter("playline.user.budget.shared.takes", "budget", "events")).isEqualTo(1);
  }

  private TestGateway node(RedisNamespace ns, String id, String lookupCache,
      UserBudgetTest.@Nullable ControlsSeen history, int deletesPerMinute) {
    Map<String, String> settings = new HashMap<>(Map.of("node.id", id, "push.lookup.cache", lookupCache,
        "push.lookup.alone.cache", lookupCache.equals("0s") ? "0s" : "10m",
        "user.max.events.per.second", Integer.toString(EVENTS_PER_SECOND),
        "user.max.deletes.per.minute", Integer.toString(deletesPerMinute),
        "connection.max.frames.per.second", "1000", "user.max.refusals.before.close", "10000"));
    TestGateway node = new TestGateway(ns.redisUri(), false, ns.keyPrefix(), settings, true, history);
    nodes.add(node);
    return node;
  }

  /** Ten events of the same ten items, played at {@code time}. */
  private static ClientFrame tenEvents(long seq, long time) {
    PlayEvent[] events = new PlayEvent[EVENTS_PER_FRAME];
    for (int i = 0; i < events.length; i++) {
      events[i] = event(1 + i, 1, time);
    }
    return heartbeat(seq, events);
  }
}
