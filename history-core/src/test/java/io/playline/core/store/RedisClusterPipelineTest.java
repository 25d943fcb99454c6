package io.playline.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.core.config.ClusterTopologyConfig;
import io.playline.testing.RealRedisClusterExtension;
import io.playline.testing.RedisClusterNamespace;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Cluster pipelines (auto flush off): one flush delivers commands to nodes not yet connected. */
@ExtendWith(RealRedisClusterExtension.class)
class RedisClusterPipelineTest {

  @Test
  void firstCommandsToEveryMasterCompleteAfterOneFlush(RedisClusterNamespace ns) throws Exception {
    // Commands time out long after the bound below: a stranded command fails the bound.
    RedisConnections redis = ClusterConnections.connect(ns, Duration.ofSeconds(60), ClusterTopologyConfig.defaults());
    try {
      var pipeline = redis.newPipeline();
      var commands = RedisConnections.commands(pipeline);
      List<CompletableFuture<String>> sets = new ArrayList<>();
      Set<Object> masters = new HashSet<>();
      for (int i = 0; i < 30; i++) {
        String key = ns.key("{p" + i + "}");
        masters.add(ns.cluster().masterOfKey(key));
        sets.add(commands.set(key.getBytes(StandardCharsets.UTF_8), new byte[] {1}).toCompletableFuture());
      }
      assertThat(masters).hasSize(3);
      pipeline.flushCommands();
      CompletableFuture.allOf(sets.toArray(new CompletableFuture<?>[0])).get(20, TimeUnit.SECONDS);
      assertThat(sets).allMatch(f -> "OK".equals(f.join()));
    } finally {
      redis.close();
    }
  }
}
