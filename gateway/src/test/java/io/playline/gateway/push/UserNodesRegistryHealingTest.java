package io.playline.gateway.push;

import static io.playline.gateway.push.PushExpectations.heartbeatAcked;
import static io.playline.testing.Frames.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import io.playline.testing.WsPlayerClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Registry entries left behind by crashed or restarted nodes stop attracting pushes. */
@ExtendWith(RealRedisExtension.class)
class UserNodesRegistryHealingTest {
  private static final AtomicLong UIDS = new AtomicLong(80_000);
  private static final Duration WAIT = Duration.ofSeconds(10);

  private PushNode a;
  private PushNode b;
  private final long now = System.currentTimeMillis();

  @BeforeEach
  void startNodes(RedisNamespace ns) {
    a = new PushNode(ns, "node-a", Map.of());
    b = new PushNode(ns, "node-b", Map.of());
  }

  @AfterEach
  void stopNodes() {
    if (a != null) {
      a.close();
    }
    if (b != null) {
      b.close();
    }
  }

  private void putEntry(long uid, String node, long expiresAtMs) throws Exception {
    a.redis.shared().hset(a.keys.nodes(uid), node.getBytes(StandardCharsets.UTF_8),
        Long.toString(expiresAtMs).getBytes(StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS);
  }

  @Test
  void expiredEntryOfADeadNodeIsIgnoredAndPruned() throws Exception {
    long uid = UIDS.incrementAndGet();
    putEntry(uid, "node-dead", System.currentTimeMillis() - 1);
    try (WsPlayerClient phone = a.connect(uid, "phone")) {
      await().atMost(WAIT).untilAsserted(() -> assertThat(a.registeredNodes(uid)).contains("node-a"));
      double routes = a.routes();
      heartbeatAcked(phone, 2, event(1, 1_000, now));
      await().atMost(WAIT).until(() -> a.routes() > routes);
      assertThat(a.routedRemote()).isZero();
      await().atMost(WAIT).untilAsserted(() -> assertThat(a.registeredNodes(uid)).containsExactly("node-a"));
      assertThat(a.counter("playline.push.registry.expired")).isEqualTo(1);
    }
  }

  @Test
  void liveNodeWithoutTheUserRemovesItsStaleEntryWhenPublishedTo() throws Exception {
    long uid = UIDS.incrementAndGet();
    // As if node-b had held the user before a restart that kept its node id.
    putEntry(uid, "node-b", System.currentTimeMillis() + 60_000);
    try (WsPlayerClient phone = a.connect(uid, "phone")) {
      await().atMost(WAIT).untilAsserted(() -> assertThat(a.registeredNodes(uid)).contains("node-a", "node-b"));
      heartbeatAcked(phone, 2, event(1, 1_000, now));
      await().atMost(WAIT).until(() -> a.routes() == 1);
      assertThat(a.routedRemote()).isEqualTo(1);
      await().atMost(WAIT).until(() -> b.counter("playline.push.remote.stale") == 1);
      await().atMost(WAIT).untilAsserted(() -> assertThat(a.registeredNodes(uid)).containsExactly("node-a"));

      double routes = a.routes();
      heartbeatAcked(phone, 3, event(1, 2_000, now + 1));
      await().atMost(WAIT).until(() -> a.routes() > routes);
      assertThat(a.routedRemote()).isEqualTo(1);
    }
  }
}
