package io.playline.gateway;

import static io.playline.testing.Frames.auth;
import static io.playline.testing.Frames.event;
import static io.playline.testing.Frames.heartbeat;
import static io.playline.testing.Frames.keepAlive;
import static io.playline.testing.Frames.resume;
import static org.assertj.core.api.Assertions.assertThat;

import io.playline.core.store.RedisKeys;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.HeartbeatAck;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.PlayEvent;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealRedisExtension.class)
class HeartbeatStreamTest {
  private static final AtomicLong UIDS = new AtomicLong(1_000);
  private TestGateway gateway;
  private final long now = System.currentTimeMillis();

  @AfterEach
  void stop() {
    if (gateway != null) {
      gateway.close();
    }
  }

  private TestGateway start(RedisNamespace ns, String... keyValues) {
    Map<String, String> overrides = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      overrides.put(keyValues[i], keyValues[i + 1]);
    }
    gateway = new TestGateway(ns, overrides);
    return gateway;
  }

  private WsPlayerClient authed(long uid, String device) throws Exception {
    WsPlayerClient c = gateway.ws();
    c.send(auth(1, TestGateway.token(uid), device, "web"));
    assertThat(c.next().hasAuthOk()).isTrue();
    return c;
  }

  private HeartbeatAck ack(WsPlayerClient c, long seq) throws Exception {
    ServerFrame f = c.next();
    assertThat(f.getSeq()).isEqualTo(seq);
    assertThat(f.hasHeartbeatAck()).as("ack, got %s", f).isTrue();
    return f.getHeartbeatAck();
  }

  private long setbitCalls() throws Exception {
    String info = gateway.redis.shared().info("commandstats").get();
    Matcher m = Pattern.compile("cmdstat_setbit:calls=(\\d+)").matcher(info);
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  private HistoryRecord stored(long uid, long oid) throws Exception {
    byte[] b = gateway.redis.shared().hget(gateway.keys.records(uid), RedisKeys.member(Business.VIDEO, oid)).get();
    return b == null ? null : HistoryRecord.parseFrom(b);
  }

  @Test
  void heartbeatIsWrittenThenAckedWithFirstViewAndFirstToday(RedisNamespace ns) throws Exception {
    start(ns);
    long uid = UIDS.incrementAndGet();
    try (WsPlayerClient c = authed(uid, "phone")) {
      c.send(heartbeat(2, event(10, 5_000, now), event(11, 7_000, now)));
      HeartbeatAck ack = ack(c, 2);
      assertThat(ack.getFirstToday()).isTrue();
      assertThat(ack.getFlagDate()).matches("\\d{4}-\\d{2}-\\d{2}");
      assertThat(ack.getFirstViewList()).containsExactly(true, true);
      HistoryRecord r = stored(uid, 10);
      assertThat(r.getProgressMs()).isEqualTo(5_000);
      assertThat(r.getViewTimeMs()).isEqualTo(now);
      assertThat(r.getDeviceId()).isEqualTo("phone");
      c.send(heartbeat(3, ack.getFlagDate(), event(10, 6_000, now + 1)));
      HeartbeatAck second = ack(c, 3);
      assertThat(second.getFirstToday()).isFalse();
      assertThat(second.getFirstViewList()).containsExactly(false);
    }
    assertThat(gateway.firstTodays).extracting(TestGateway.FirstToday::uid).containsExactly(uid);
  }

  @Test
  void eachHeartbeatsTimeInTheNodeIsTimedByStageAsHistograms(RedisNamespace ns) throws Exception {
    start(ns);
    List<String> stages = List.of("wait", "redis", "node");
    String before = gateway.registry.scrape();
    try (WsPlayerClient c = authed(UIDS.incrementAndGet(), "phone")) {
      for (int seq = 2; seq < 5; seq++) {
        c.send(heartbeat(seq, event(10, seq * 1_000L, now + seq)));
        ack(c, seq);
      }
    }
    String after = gateway.registry.scrape();
    // Recorded before the ack is handed on: every stage has the three heartbeats once they are acked.
    for (String stage : stages) {
      assertThat(stageSample(after, "count", stage) - stageSample(before, "count", stage)).as(stage).isEqualTo(3);
    }
    // Each heartbeat's whole time in the node holds its wait and its batch's round trip (sums are
    // kept in whole microseconds, each record rounded by half a microsecond at most: 4.5 µs in all).
    double wait = stageSample(after, "sum", "wait") - stageSample(before, "sum", "wait");
    double redis = stageSample(after, "sum", "redis") - stageSample(before, "sum", "redis");
    assertThat(redis).isPositive();
    assertThat(stageSample(after, "sum", "node") - stageSample(before, "sum", "node"))
        .isGreaterThanOrEqualTo(wait + redis - 10e-6);
  }

  /** One series of {@code playline_heartbeat_stage_seconds} in a scrape, e.g. its {@code count} for {@code node}. */
  private static double stageSample(String scrape, String suffix, String stage) {
    String series = "playline_heartbeat_stage_seconds_" + suffix + "{stage=\"" + stage + "\"}";
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(scrape);
    assertThat(m.find()).as("%s in the scrape", series).isTrue();
    return Double.parseDouble(m.group(1));
  }

  @Test
  void oneIoThreadCarriesConnectionsRedisAndAcks(RedisNamespace ns) throws Exception {
    // io.threads=1 with io.redis.shared: reading, batching, the Redis round trip and the ack all
    // happen on one loop, and nothing waits on itself.
    start(ns, "io.threads", "1");
    assertThat(gateway.redis.ioLoop()).isSameAs(gateway.loops.first());
    long first = UIDS.incrementAndGet();
    long second = UIDS.incrementAndGet();
    try (WsPlayerClient a = authed(first, "phone"); WsPlayerClient b = authed(second, "tv")) {
      for (int seq = 2; seq < 12; seq++) {
        a.send(heartbeat(seq, event(10, seq * 1_000L, now + seq)));
        b.send(heartbeat(seq, event(10, seq * 2_000L, now + seq)));
      }
      for (int seq = 2; seq < 12; seq++) {
        assertThat(ack(a, seq).getFirstViewCount()).isEqualTo(1);
        assertThat(ack(b, seq).getFirstViewCount()).isEqualTo(1);
      }
    }
    assertThat(stored(first, 10).getProgressMs()).isEqualTo(11_000);
    assertThat(stored(second, 10).getProgressMs()).isEqualTo(22_000);
  }

  @Test
  void redisOnAThreadOfItsOwnWhenNotShared(RedisNamespace ns) throws Exception {
    start(ns, "io.redis.shared", "false", "io.threads", "1");
    assertThat(gateway.redis.ioLoop()).isNotSameAs(gateway.loops.first());
    long uid = UIDS.incrementAndGet();
    try (WsPlayerClient c = authed(uid, "phone")) {
      c.send(heartbeat(2, event(10, 4_000, now)));
      assertThat(ack(c, 2).getFirstViewList()).containsExactly(true);
    }
    assertThat(stored(uid, 10).getProgressMs()).isEqualTo(4_000);
  }

  @Test
  void echoedTodayFlagSkipsRedis(RedisNamespace ns) throws Exception {
    start(ns);
    String today;
    try (WsPlayerClient other = authed(UIDS.incrementAndGet(), "phone")) {
      other.send(heartbeat(2, event(10, 1, now)));
      today = ack(other, 2).getFlagDate();
    }
    // A user this node has never seen, on a fresh connection, echoing today's date from its first
    // heartbeat (as a client that was counted today through another node does): only the echo
    // can spare the Redis check, since neither the connection's nor the node's memory knows the user.
    long uid = UIDS.incrementAndGet();
    try (WsPlayerClient c = authed(uid, "tv")) {
      long setbits = setbitCalls();
      double ftCommands = gateway.counter("playline.first.today.redis.commands");
      double echoSkips = gateway.counter("playline.first.today", "result", "echo_skip");
      for (int i = 0; i < 5; i++) {
        c.send(heartbeat(2 + i, today, event(10, 2 + i, now + i)));
        assertThat(ack(c, 2 + i).getFirstToday()).isFalse();
      }
      assertThat(setbitCalls()).isEqualTo(setbits);
      assertThat(gateway.counter("playline.first.today.redis.commands")).isEqualTo(ftCommands);
      assertThat(gateway.counter("playline.first.today", "result", "echo_skip")).isEqualTo(echoSkips + 5);
    }
  }

  @Test
  void clientThatNeverEchoesHitsRedisOnce(RedisNamespace ns) throws Exception {
    start(ns);
    long uid = UIDS.incrementAndGet();
    try (WsPlayerClient c = authed(uid, "tv")) {
      long before = setbitCalls();
      c.send(heartbeat(2, event(10, 1, now)));
      assertThat(ack(c, 2).getFirstToday()).isTrue();
      long setbits = setbitCalls();
      // The probe moves when the bitmap is written: the "unchanged" checks below and above can fail.
      assertThat(setbits).isGreaterThan(before);
      c.send(heartbeat(3, event(10, 2, now + 1)));
      assertThat(ack(c, 3).getFirstToday()).isFalse();
      assertThat(setbitCalls()).isEqualTo(setbits);
    }
  }

  @Test
  void secondDeviceOfTheUserIsNotFirstToday(RedisNamespace ns) throws Exception {
    start(ns);
    long uid = UIDS.incrementAndGet();
    try (WsPlayerClient phone = authed(uid, "phone"); WsPlayerClient tv = authed(uid, "tv")) {
      phone.send(heartbeat(2, event(10, 1, now)));
      assertThat(ack(phone, 2).getFirstToday()).isTrue();
      // The phone's progress is pushed to the user's other device (queued before the phone's ack arrived).
      assertThat(tv.next().getSync().getRecord().getOid()).isEqualTo(10);
      tv.send(heartbeat(2, event(11, 1, now)));
      HeartbeatAck tvAck = ack(tv, 2);
      assertThat(tvAck.getFirstToday()).isFalse();
      assertThat(tvAck.getFlagDate()).isNotEmpty();
    }
    assertThat(gateway.firstTodays).hasSize(1);
  }

  @Test
  void lateOlderEventDoesNotRegressProgress(RedisNamespace ns) throws Exception {
    start(ns);
    long uid = UIDS.incrementAndGet();
    try (WsPlayerClient c = authed(uid, "phone")) {
      c.send(heartbeat(2, event(10, 9_000, now)));
      ack(c, 2);
      c.send(heartbeat(3, event(10, 1_000, now - 60_000)));
      assertThat(ack(c, 3).getFirstViewList()).containsExactly(false);
      assertThat(stored(uid, 10).getProgressMs()).isEqualTo(9_000);
    }
  }

  @Test
  void keepAliveIsAckedWithoutCountingTheUser(RedisNamespace ns) throws Exception {
    start(ns);
    try (WsPlayerClient c = authed(UIDS.incrementAndGet(), "phone")) {
      long setbits = setbitCalls();
      c.send(keepAlive(2));
      HeartbeatAck ack = ack(c, 2);
      assertThat(ack.getFirstToday()).isFalse();
      assertThat(ack.getFirstViewList()).isEmpty();
      assertThat(setbitCalls()).isEqualTo(setbits);
    }
  }

  @Test
  void invalidEventIsRejectedAndTheConnectionStaysOpen(RedisNamespace ns) throws Exception {
    start(ns);
    try (WsPlayerClient c = authed(UIDS.incrementAndGet(), "phone")) {
      c.send(heartbeat(2, PlayEvent.newBuilder().setOid(5).build()));
      ServerFrame error = c.next();
      assertThat(error.getSeq()).isEqualTo(2);
      assertThat(error.getError().getCode()).isEqualTo(Code.INVALID_ARGUMENT);
      assertThat(error.getError().getMessage()).contains("events[0].business");
      c.send(heartbeat(3, event(10, 1, now)));
      assertThat(ack(c, 3).getFirstViewList()).containsExactly(true);
    }
  }

  @Test
  void tooManyEventsInOneHeartbeatIsRejected(RedisNamespace ns) throws Exception {
    start(ns, "heartbeat.max.events", "2");
    try (WsPlayerClient c = authed(UIDS.incrementAndGet(), "phone")) {
      c.send(heartbeat(2, event(1, 1, now), event(2, 1, now), event(3, 1, now)));
      ServerFrame error = c.next();
      assertThat(error.getError().getCode()).isEqualTo(Code.INVALID_ARGUMENT);
      assertThat(error.getError().getMessage()).contains("at most 2");
    }
  }

  @Test
  void resumingWithSessionIdSkipsTheIdentityCheck(RedisNamespace ns) throws Exception {
    start(ns);
    long uid = UIDS.incrementAndGet();
    WsPlayerClient first = gateway.ws();
    first.send(auth(1, TestGateway.token(uid), "phone"));
    String sessionId = first.next().getAuthOk().getSessionId();
    first.close();
    double checks = gateway.counter("playline.auth.identity.checks");
    try (WsPlayerClient again = gateway.ws()) {
      again.send(resume(1, sessionId, "phone"));
      ServerFrame ok = again.next();
      assertThat(ok.getAuthOk().getUid()).isEqualTo(uid);
      assertThat(ok.getAuthOk().getSessionId()).isEqualTo(sessionId);
    }
    assertThat(gateway.counter("playline.auth.identity.checks")).isEqualTo(checks);
    assertThat(gateway.counter("playline.auth", "result", "resumed")).isEqualTo(1);
  }

  @Test
  void unknownSessionWithoutTokenIsExpired(RedisNamespace ns) throws Exception {
    start(ns);
    try (WsPlayerClient c = gateway.ws()) {
      c.send(resume(1, "no-such-session", "phone"));
      assertThat(c.next().getError().getCode()).isEqualTo(Code.SESSION_EXPIRED);
      assertThat(c.awaitClose().code()).isEqualTo(4000 + Code.SESSION_EXPIRED.getNumber());
    }
  }

  @Test
  void tooManyConnectionsFromOneAddressAreRefused(RedisNamespace ns) throws Exception {
    start(ns, "connection.max.per.address", "2");
    try (WsPlayerClient a = authed(UIDS.incrementAndGet(), "a"); WsPlayerClient b = authed(UIDS.incrementAndGet(), "b");
        WsPlayerClient c = gateway.ws()) {
      assertThat(c.next().getError().getCode()).isEqualTo(Code.TOO_MANY_CONNECTIONS);
      assertThat(a.closed).isNotDone();
      assertThat(b.closed).isNotDone();
      assertThat(c.awaitClose().code()).isEqualTo(4000 + Code.TOO_MANY_CONNECTIONS.getNumber());
    }
  }

  @Test
  void silentConnectionIsClosedAfterTheIdleTimeout(RedisNamespace ns) throws Exception {
    start(ns, "heartbeat.interval", "1s", "idle.timeout", "2s");
    try (WsPlayerClient c = authed(UIDS.incrementAndGet(), "phone")) {
      assertThat(c.next().getError().getCode()).isEqualTo(Code.IDLE_TIMEOUT);
      assertThat(c.awaitClose().code()).isEqualTo(4000 + Code.IDLE_TIMEOUT.getNumber());
    }
  }

  @Test
  void floodingClientIsRateLimitedThenClosed(RedisNamespace ns) throws Exception {
    start(ns, "connection.max.frames.per.second", "3");
    try (WsPlayerClient c = authed(UIDS.incrementAndGet(), "phone")) {
      for (int i = 0; i < 10; i++) {
        try {
          c.send(keepAlive(10 + i));
        } catch (java.util.concurrent.CompletionException e) {
          // The server may close the flood before all ten are out: the client answered its close
          // frame (after hearing it) and sends nothing more.
          assertThat(c.closed).as("a send fails only once the server closed: %s", e).isDone();
          break;
        }
      }
      // Read until the server has closed and nothing more arrives.
      java.util.List<ServerFrame> received = new java.util.ArrayList<>();
      for (ServerFrame f = c.poll(5_000); f != null; f = c.poll(c.closed.isDone() ? 200 : 5_000)) {
        received.add(f);
      }
      boolean sawRateLimited = received.stream()
          .anyMatch(f -> f.hasError() && f.getError().getCode() == Code.RATE_LIMITED);
      assertThat(sawRateLimited).isTrue();
      assertThat(c.awaitClose().code()).isEqualTo(4000 + Code.RATE_LIMITED.getNumber());
    }
  }

  @Test
  void fullBatcherQueueAnswersUnavailable(RedisNamespace ns) throws Exception {
    start(ns, "heartbeat.queue.max", "1", "heartbeat.max.inflight", "1", "heartbeat.inflight.wait", "10s",
        "heartbeat.batch.max.events", "1");
    try (WsPlayerClient c = authed(UIDS.incrementAndGet(), "phone")) {
      gateway.redis.shared().clientPause(1500).get();
      for (int i = 0; i < 4; i++) {
        c.send(heartbeat(2 + i, event(10, i, now + i)));
      }
      int unavailable = 0;
      int acks = 0;
      for (int i = 0; i < 4; i++) {
        ServerFrame f = c.next();
        if (f.hasError()) {
          assertThat(f.getError().getCode()).isEqualTo(Code.UNAVAILABLE);
          unavailable++;
        } else {
          assertThat(f.hasHeartbeatAck()).isTrue();
          acks++;
        }
      }
      assertThat(unavailable).isPositive();
      assertThat(acks).isPositive();
      assertThat(gateway.counter("playline.heartbeat.refused")).isEqualTo(unavailable);
    }
  }
}
