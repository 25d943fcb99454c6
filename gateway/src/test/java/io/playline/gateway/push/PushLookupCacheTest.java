package io.playline.gateway.push;

import static io.playline.gateway.push.Frames.event;
import static io.playline.gateway.push.Frames.expectSync;
import static io.playline.gateway.push.Frames.heartbeatAcked;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import java.time.Duration;
import java.util.Map;
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
      // Node A looks the user up once and caches "nobody else" for ten minutes.
      double lookupsBefore = lookups(a);
      heartbeatAcked(phone, 2, event(42, 1_000, now));
      heartbeatAcked(phone, 3, event(42, 2_000, now + 1));
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(routes(a)).isEqualTo(2));
      assertThat(lookups(a) - lookupsBefore).as("registry reads for 2 moves").isEqualTo(1);

      try (WsPlayerClient tv = b.connect(uid, "tv")) {
        // Node B joined the user's registry and told node A, which dropped its answer.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(joins(a, "received")).isEqualTo(1));
        assertThat(joins(b, "announced")).isEqualTo(1);
        heartbeatAcked(phone, 4, event(42, 3_000, now + 2));
        assertThat(expectSync(tv).getProgressMs()).isEqualTo(3_000L);
      }
    }
  }
}
