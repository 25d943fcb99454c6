package io.playline.gateway.push;

import static io.playline.gateway.push.PushExpectations.expectSync;
import static io.playline.gateway.push.PushExpectations.heartbeatAcked;
import static io.playline.testing.Frames.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealRedisExtension.class)
class PushLookupCacheTest {
  private static long hgetallCalls(PushNode node) throws Exception {
    String info = node.redis.shared().info("commandstats").get();
    Matcher m = Pattern.compile("cmdstat_hgetall:calls=(\\d+)").matcher(info);
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  private static double lookups(PushNode node) {
    return node.registry.get("playline.redis.commands").tag("path", "push-lookup").counter().count();
  }

  @Test
  void aUserMovingProgressOnEveryHeartbeatCostsOneRegistryReadPerCacheWindow(RedisNamespace ns) throws Exception {
    long uid = 91_001;
    long now = System.currentTimeMillis();
    try (PushNode a = new PushNode(ns, "node-a", Map.of("push.lookup.cache", "1m", "sync.coalesce.window", "0s"));
        PushNode b = new PushNode(ns, "node-b", Map.of());
        WsPlayerClient phone = a.connect(uid, "phone");
        WsPlayerClient tv = b.connect(uid, "tv")) {
      await().atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(a.registeredNodes(uid)).containsExactlyInAnyOrder("node-a", "node-b"));
      long before = hgetallCalls(a);
      double metered = lookups(a);
      for (int i = 0; i < 5; i++) {
        heartbeatAcked(phone, 2 + i, event(42, 1_000 * (i + 1), now + i));
        assertThat(expectSync(tv).getProgressMs()).isEqualTo(1_000L * (i + 1));
      }
      assertThat(hgetallCalls(a) - before).as("registry reads for 5 progress moves").isEqualTo(1);
      assertThat(lookups(a) - metered).as("registry reads metered").isEqualTo(1);
      // Metered beside the write path's commands, under one name.
      assertThat(a.registry.scrape()).contains("playline_redis_commands_total{path=\"push-lookup\"")
          .contains("playline_redis_commands_total{path=\"write\"");
    }
  }

  private static double routes(PushNode node) {
    return node.registry.get("playline.push.routes").counter().count();
  }

  private static double joins(PushNode node, String direction) {
    return node.registry.get("playline.push.registry.joins").tag("direction", direction).counter().count();
  }

  @Test
  void aDeviceJoiningOnAnotherNodeIsReachedAtOnceDespiteTheCache(RedisNamespace ns) throws Exception {
    long uid = 91_002;
    long now = System.currentTimeMillis();
    try (PushNode a = new PushNode(ns, "node-a", Map.of("push.lookup.cache", "10m", "sync.coalesce.window", "0s"));
        PushNode b = new PushNode(ns, "node-b", Map.of());
        WsPlayerClient phone = a.connect(uid, "phone")) {
      await().atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(a.registeredNodes(uid)).containsExactly("node-a"));
      // Node A read the registry when it joined and keeps "nobody else" for ten minutes.
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(lookups(a)).isEqualTo(1));
      heartbeatAcked(phone, 2, event(42, 1_000, now));
      heartbeatAcked(phone, 3, event(42, 2_000, now + 1));
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(routes(a)).isEqualTo(2));
      assertThat(lookups(a)).as("registry reads for the join and 2 moves").isEqualTo(1);

      try (WsPlayerClient tv = b.connect(uid, "tv")) {
        // Node B joined the user's registry and told node A, which dropped its answer.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(joins(a, "received")).isEqualTo(1));
        assertThat(joins(b, "announced")).isEqualTo(1);
        heartbeatAcked(phone, 4, event(42, 3_000, now + 2));
        assertThat(expectSync(tv).getProgressMs()).isEqualTo(3_000L);
      }
    }
  }

  /** Registry reads node A makes for a one-device user's join and three progress moves. */
  private static double lookupsForJoinAndThreeMoves(RedisNamespace ns, long uid, String aloneCache) throws Exception {
    long now = System.currentTimeMillis();
    try (PushNode a = new PushNode(ns, "node-a", Map.of("push.lookup.cache", "0s", "push.lookup.alone.cache",
        aloneCache, "sync.coalesce.window", "0s"));
        WsPlayerClient phone = a.connect(uid, "phone")) {
      // Joining the user's registry reads it once (to announce the join).
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(lookups(a)).isEqualTo(1));
      for (int i = 0; i < 3; i++) {
        heartbeatAcked(phone, 2 + i, event(42, 1_000 * (i + 1), now + i));
      }
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(routes(a)).isEqualTo(3));
      return lookups(a);
    }
  }

  @Test
  void aUserWithOneDeviceCostsNoRegistryReadPerChange(RedisNamespace ns) throws Exception {
    // The join's answer, "nobody else", is kept.
    assertThat(lookupsForJoinAndThreeMoves(ns, 91_003, "10m")).isEqualTo(1);
  }

  @Test
  void withoutTheAloneCacheEveryChangeOfAOneDeviceUserReadsTheRegistry(RedisNamespace ns) throws Exception {
    assertThat(lookupsForJoinAndThreeMoves(ns, 91_004, "0s")).isEqualTo(4);
  }

  @Test
  void aNodeForgetsWhatItKnewOfAUserWhoLeftIt(RedisNamespace ns) throws Exception {
    long uid = 91_006;
    long now = System.currentTimeMillis();
    try (PushNode a = new PushNode(ns, "node-a", Map.of("push.lookup.cache", "0s", "push.lookup.alone.cache", "10m",
        "sync.coalesce.window", "0s"));
        PushNode b = new PushNode(ns, "node-b", Map.of("sync.coalesce.window", "0s"))) {
      WsPlayerClient phone = a.connect(uid, "phone");
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(lookups(a)).isEqualTo(1));
      phone.close();
      // The user left node A (A is out of the user's registry, so it hears of no joins), then
      // connected to node B, then came back to A: A must not trust its old "nobody else".
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(a.registeredNodes(uid)).isEmpty());
      try (WsPlayerClient tv = b.connect(uid, "tv");
          WsPlayerClient phoneAgain = a.connect(uid, "phone")) {
        await().atMost(Duration.ofSeconds(10))
            .untilAsserted(() -> assertThat(a.registeredNodes(uid)).containsExactlyInAnyOrder("node-a", "node-b"));
        heartbeatAcked(phoneAgain, 2, event(42, 3_000, now));
        assertThat(expectSync(tv).getProgressMs()).isEqualTo(3_000L);
      }
    }
  }

  @Test
  void noOtherNodeIsKeptOnlyBrieflyForAUserTheNodeDoesNotHold(RedisNamespace ns) throws Exception {
    long uid = 91_007;
    long now = System.currentTimeMillis();
    try (PushNode a = new PushNode(ns, "node-a", Map.of("push.lookup.cache", "0s", "push.lookup.alone.cache", "10m"));
        PushNode b = new PushNode(ns, "node-b", Map.of("sync.coalesce.window", "0s"))) {
      // A backend pushes through node A while the user is connected nowhere: A hears of no joins for
      // this user, so its answer "nobody" must not be kept for the alone window.
      a.server.push().push(uid, record(1_000, now)).toCompletableFuture().get(10, TimeUnit.SECONDS);
      try (WsPlayerClient tv = b.connect(uid, "tv")) {
        await().atMost(Duration.ofSeconds(10))
            .untilAsserted(() -> assertThat(a.registeredNodes(uid)).containsExactly("node-b"));
        a.server.push().push(uid, record(2_000, now + 1)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(expectSync(tv).getProgressMs()).isEqualTo(2_000L);
      }
    }
  }

  private static HistoryRecord record(long progressMs, long viewTimeMs) {
    return HistoryRecord.newBuilder().setBusiness(Business.VIDEO).setOid(42).setProgressMs(progressMs)
        .setDurationMs(600_000).setViewTimeMs(viewTimeMs).build();
  }

  private static double subscriptions(PushNode node) {
    return node.registry.get("playline.push.channel.subscriptions").counter().count();
  }

  @Test
  void aReSubscribedPushChannelDropsTheCachedAnswers(RedisNamespace ns) throws Exception {
    long uid = 91_005;
    long now = System.currentTimeMillis();
    try (PushNode a = new PushNode(ns, "node-a", Map.of("push.lookup.cache", "0s", "push.lookup.alone.cache", "10m",
        "sync.coalesce.window", "0s"));
        WsPlayerClient phone = a.connect(uid, "phone")) {
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(lookups(a)).isEqualTo(1));
      heartbeatAcked(phone, 2, event(42, 1_000, now));
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(routes(a)).isEqualTo(1));
      assertThat(lookups(a)).isEqualTo(1);
      assertThat(subscriptions(a)).isEqualTo(1);

      // Redis drops the node's pub/sub connection: join notices sent meanwhile would be lost. The
      // client reconnects and subscribes again, and the node forgets what it cached.
      // (Every pub/sub client of this Redis: the tests of this JVM run one at a time, and node A's is
      // the only one this test holds; any other reconnects on its own.)
      a.redis.shared().clientKill(io.lettuce.core.KillArgs.Builder.typePubsub()).get(5, TimeUnit.SECONDS);
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(subscriptions(a)).isEqualTo(2));
      heartbeatAcked(phone, 3, event(42, 2_000, now + 1));
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(routes(a)).isEqualTo(2));
      assertThat(lookups(a)).as("the change after the re-subscription reads the registry again").isEqualTo(2);
    }
  }
}
