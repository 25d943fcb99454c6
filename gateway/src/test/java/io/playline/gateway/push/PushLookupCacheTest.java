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
}
