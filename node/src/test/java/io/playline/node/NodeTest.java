package io.playline.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.store.RedisConnections;
import io.playline.core.write.FirstTodayListener;
import io.playline.core.write.RedisHistoryWriter;
import io.playline.core.write.WriteBackSink;
import io.playline.core.write.WriteMetrics;
import io.playline.node.write.EventRecords;
import io.playline.node.write.PendingWrite;
import io.playline.proto.v1.Business;
import io.playline.testing.Frames;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** How a {@link Node} stops the servers attached to it, on the real Redis its write path uses. */
@ExtendWith(RealRedisExtension.class)
class NodeTest {

  @Test
  void attachedServersStopNewestFirstWhileTheWritePathStillWrites(RedisNamespace ns) throws Exception {
    ConfigSource source = ConfigSource.empty().with(Map.of("bind.host", "127.0.0.1", "admin.port", "0",
        "node.id", "node-test", "io.threads", "1", "redis.key.prefix", ns.keyPrefix()));
    CoreConfig core = CoreConfig.from(source);
    List<String> stopped = new CopyOnWriteArrayList<>();
    Node node = Node.builder(NodeConfig.from(source)).core((loop, meters, clock) -> {
      RedisConnections redis = RedisConnections.connect(ns.redisUri(), false, Duration.ofSeconds(5), loop);
      RedisHistoryWriter writer = new RedisHistoryWriter(core, redis, WriteBackSink.NONE,
          new WriteMetrics(meters, clock));
      return new Node.Core(core, redis, writer, FirstTodayListener.NONE, null, () -> {
        stopped.add("core");
        writer.close();
        redis.close();
      });
    }).start();
    CompletableFuture<Boolean> written = new CompletableFuture<>();
    node.attach(() -> stopped.add("first"));
    node.attach(() -> {
      stopped.add("second");
      // A server being stopped may still finish a write: the write path outlives it.
      long now = System.currentTimeMillis();
      node.batcher().submit(new PendingWrite(7, EventRecords.build(7, "d", "p", List.of(
          Frames.event(Business.VIDEO, 1, 1_000, 60_000, now)), now, node.eventRules()), false, "", "d", "p",
          (outcome, firstToday, day, error) -> written.complete(error == null && outcome != null),
          node.batcher().nanoTime()));
      written.get(10, TimeUnit.SECONDS);
    });

    node.close();

    assertThat(stopped).containsExactly("second", "first", "core");
    assertThat(written).isCompletedWithValue(true);
  }
}
