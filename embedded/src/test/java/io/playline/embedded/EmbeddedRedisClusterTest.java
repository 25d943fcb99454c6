package io.playline.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedRedisClusterTest {

  @TempDir Path workDir;

  @Test
  void formsAClusterThatServesEverySlotAndSurvivesAMasterKill() throws IOException {
    try (EmbeddedRedisCluster cluster = EmbeddedRedisCluster.start(
        new EmbeddedRedisCluster.Options(workDir, 3, 1, Duration.ofMillis(1000)))) {
      assertThat(cluster.nodes()).hasSize(6);
      assertThat(cluster.seedUri()).isEqualTo(cluster.nodes().get(0).uri());
      Set<EmbeddedRedisCluster.Node> masters = new HashSet<>();
      for (int slot : List.of(0, 5461, 16383)) {
        masters.add(cluster.masterOf(slot));
      }
      assertThat(masters).hasSize(3);
      assertThat(cluster.slotOf("{42}:z")).isEqualTo(SlotHash.getSlot("42"));

      // An independent client (Lettuce) sees a working cluster: keys land on every master.
      RedisClusterClient client = RedisClusterClient.create(cluster.seedUri());
      try (StatefulRedisClusterConnection<String, String> c = client.connect()) {
        for (int i = 0; i < 100; i++) {
          c.sync().set("k" + i, "v" + i);
        }
        assertThat(c.sync().get("k7")).isEqualTo("v7");
        assertThat(c.sync().clusterInfo()).contains("cluster_state:ok");
      } finally {
        client.shutdown();
      }

      EmbeddedRedisCluster.Node victim = cluster.masterOfKey("k7");
      EmbeddedRedisCluster.Node replica = cluster.replicasOf(victim).get(0);
      cluster.awaitReplicated(victim, Duration.ofSeconds(10));
      cluster.killMaster(victim);
      assertThatThrownBy(() -> RespClient.call("127.0.0.1", victim.port(), Duration.ofMillis(200), "PING"))
          .isInstanceOf(IOException.class);
      cluster.awaitHealthy(Duration.ofSeconds(30));
      assertThat(cluster.masterOfKey("k7")).isEqualTo(replica);
      assertThat(RespClient.call("127.0.0.1", replica.port(), Duration.ofSeconds(1), "GET", "k7")).isEqualTo("v7");

      cluster.restart(victim, Duration.ofSeconds(30));
      assertThat(cluster.replicasOf(replica)).containsExactly(victim);
      assertThatThrownBy(() -> cluster.killMaster(victim)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void closeStopsEveryNode() throws IOException {
    EmbeddedRedisCluster cluster = EmbeddedRedisCluster.start(
        new EmbeddedRedisCluster.Options(workDir, 1, 1, Duration.ofMillis(1000)));
    List<EmbeddedRedisCluster.Node> nodes = cluster.nodes();
    cluster.close();
    cluster.close();
    for (EmbeddedRedisCluster.Node node : nodes) {
      assertThatThrownBy(() -> RespClient.call("127.0.0.1", node.port(), Duration.ofMillis(200), "PING"))
          .isInstanceOf(IOException.class);
    }
  }

  @Test
  void optionsRejectOutOfRangeValues() {
    assertThatThrownBy(() -> new EmbeddedRedisCluster.Options(workDir, 0, 1, Duration.ofSeconds(1)))
        .hasMessageContaining("masters: 0 (expected: 1..16)");
    assertThatThrownBy(() -> new EmbeddedRedisCluster.Options(workDir, 3, 1, Duration.ofMillis(10)))
        .hasMessageContaining("nodeTimeout");
  }
}
