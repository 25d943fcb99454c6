package io.playline.gateway.push;

import static io.playline.gateway.push.PushExpectations.expectSync;
import static io.playline.gateway.push.PushExpectations.heartbeatAcked;
import static io.playline.testing.Frames.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.embedded.EmbeddedRedisCluster;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.RealRedisClusterExtension;
import io.playline.testing.RedisClusterNamespace;
import io.playline.testing.WsPlayerClient;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two gateway nodes on a real Redis Cluster: sessions, heartbeats, acks and cross-device push
 * (registry in the user's slot, node channels over cluster pub/sub) for users on every master.
 */
@ExtendWith(RealRedisClusterExtension.class)
class ClusterPushTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @Test
  void phonesOnOneNodeSyncTvsOnAnotherForUsersOnEveryMaster(RedisClusterNamespace ns) throws Exception {
    long now = System.currentTimeMillis();
    try (PushNode a = new PushNode(ns.seedUri(), true, ns.keyPrefix(), "node-a", Map.of());
        PushNode b = new PushNode(ns.seedUri(), true, ns.keyPrefix(), "node-b", Map.of())) {
      Set<EmbeddedRedisCluster.Node> mastersSeen = new HashSet<>();
      for (long uid = 91_001; mastersSeen.size() < 3 && uid < 91_100; uid++) {
        EmbeddedRedisCluster.Node master = ns.cluster().masterOfKey(new String(a.keys.nodes(uid),
            java.nio.charset.StandardCharsets.UTF_8));
        if (!mastersSeen.add(master)) {
          continue;
        }
        long user = uid;
        try (WsPlayerClient phone = a.connect(user, "phone"); WsPlayerClient tv = b.connect(user, "tv")) {
          await().atMost(WAIT).untilAsserted(() -> assertThat(a.registeredNodes(user))
              .containsExactlyInAnyOrder("node-a", "node-b"));
          heartbeatAcked(phone, 2, event(42, 61_000, now));
          HistoryRecord synced = expectSync(tv);
          assertThat(synced.getUid()).isEqualTo(user);
          assertThat(synced.getProgressMs()).isEqualTo(61_000);
        }
      }
      assertThat(mastersSeen).as("users whose keys live on each master").hasSize(3);
      assertThat(b.receivedRemote()).isEqualTo(3);
    }
  }
}
