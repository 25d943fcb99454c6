package io.playline.core.query;

import static io.playline.core.query.QueryTestEnv.item;
import static io.playline.core.query.QueryTestEnv.join;
import static io.playline.core.query.QueryTestEnv.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.resource.DefaultEventLoopGroupProvider;
import io.lettuce.core.resource.Transports;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.playline.core.HistoryCore;
import io.playline.core.config.ConfigSource;
import io.playline.core.store.HBaseClient;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The runtime wiring: HistoryCore hands out the service once HBase is attached, opens the HBase
 * client only when a read needs HBase, and closes what it opened.
 */
@ExtendWith({RealRedisExtension.class, RealHBaseExtension.class, RealKafkaExtension.class})
class HistoryCoreQueryTest {
  private static final long UID = 6006;

  @Test
  void attachedServiceReadsBothTiersAndControlsThroughTheCoresWriteBack(RedisNamespace redis, HBaseNamespace hbase,
      KafkaNamespace kafka) {
    Map<String, String> settings = Map.of("redis.key.prefix", redis.keyPrefix(),
        "hbase.table", hbase.table("history").getNameAsString(), "kafka.topic.history", kafka.topic("history"),
        "kafka.topic.history.partitions", Integer.toString(KafkaNamespace.PARTITIONS));
    HistoryRecord stored = record(UID, Business.VIDEO, 1, 5, System.currentTimeMillis() - 10_000);
    try (QueryTestEnv env = new QueryTestEnv(redis, hbase, settings)) {
      env.persist(stored);
    }

    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (HistoryCore core = HistoryCore.start(ConfigSource.empty().with(settings), redis.redisUri(),
        kafka.bootstrapServers(), "node-1", registry)) {
      assertThatThrownBy(core::history).isInstanceOf(IllegalStateException.class);
      HistoryService service = core.attachHBase(hbase.configuration());
      assertThat(core.history()).isSameAs(service);
      assertThatThrownBy(() -> core.attachHBase(hbase.configuration())).isInstanceOf(IllegalStateException.class);
      HBaseClient client = core.hbase();
      assertThat(client.state()).as("attaching connects nothing").isEqualTo(HBaseClient.State.IDLE);
      // Point progress (no HBase fallback) and the pause flag are Redis's alone: still no HBase client.
      assertThat(join(service.progress(UID, List.of(item(Business.VIDEO, 1))))).isEmpty();
      assertThat(join(service.paused(UID))).isFalse();
      assertThat(client.state()).isEqualTo(HBaseClient.State.IDLE);

      // A cold user's page falls through Redis to HBase: the first need opens the client.
      assertThat(join(service.list(UID, List.of(), null, 0)).getRecordsList()).containsExactly(stored);
      assertThat(client.state()).isEqualTo(HBaseClient.State.RUNNING);
      assertThat(registry.get("playline.hbase.client.connects").tag("outcome", "ok").counter().count()).isEqualTo(1);
      assertThat(registry.get("playline.hbase.client.running").gauge().value()).isEqualTo(1);
      join(service.delete(UID, List.of(item(Business.VIDEO, 1))));
      assertThat(join(service.list(UID, List.of(), null, 0)).getRecordsList()).isEmpty();
      assertThat(core.aggregator().pendingItems()).isEqualTo(1);
    }
    assertThat(registry.get("playline.hbase.client.running").gauge().value()).as("closed with the core").isZero();
  }

  /**
   * Whether {@code service}'s answer to a progress read completed on {@code loop}: the loop is held
   * until the stage is chained, so the stage cannot have completed before on another thread.
   */
  private static boolean answeredOn(HistoryService service, EventExecutor loop) {
    CountDownLatch release = new CountDownLatch(1);
    loop.execute(() -> {
      try {
        release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    CompletionStage<Boolean> onLoop = service.progress(UID, List.of(item(Business.VIDEO, 1)))
        .thenApply(r -> loop.inEventLoop());
    release.countDown();
    return join(onLoop);
  }

  @Test
  void theApisReadPathAnswersOnTheLoopItIsGivenAndClosesWithTheCore(RedisNamespace redis, HBaseNamespace hbase,
      KafkaNamespace kafka) throws Exception {
    Map<String, String> settings = Map.of("redis.key.prefix", redis.keyPrefix(),
        "hbase.table", hbase.table("history").getNameAsString(), "kafka.topic.history", kafka.topic("history"),
        "kafka.topic.history.partitions", Integer.toString(KafkaNamespace.PARTITIONS));
    EventLoopGroup group = (EventLoopGroup) DefaultEventLoopGroupProvider.createEventLoopGroup(
        Transports.eventLoopGroupClass(), 2);
    try {
      EventLoop loop = group.next();
      EventLoop other = group.next();
      HistoryService api;
      HistoryService otherApi;
      HistoryCore closedCore;
      try (HistoryCore core = HistoryCore.start(ConfigSource.empty().with(settings), redis.redisUri(),
          kafka.bootstrapServers(), "node-1", new SimpleMeterRegistry())) {
        closedCore = core;
        assertThatThrownBy(() -> core.historyOn(loop)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("attachHBase");
        HistoryService nodeHistory = core.attachHBase(hbase.configuration());
        long timers = threadsNamed("lettuce-timer");
        api = core.historyOn(loop);
        assertThat(api).isNotSameAs(nodeHistory);
        assertThatThrownBy(() -> core.historyOn(loop)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("twice");
        // One per loop: another loop's path answers on that loop.
        otherApi = core.historyOn(other);

        // The answer is decoded, and the records built, on the given loop; the node's path answers on
        // its own client's.
        assertThat(answeredOn(api, loop)).as("the API's path, on the loop it was given").isTrue();
        assertThat(answeredOn(otherApi, other)).as("another loop's path, on that loop").isTrue();
        // Their command timeouts run on the core client's timer: no timer thread per loop.
        assertThat(threadsNamed("lettuce-timer")).as("Lettuce timer threads").isLessThanOrEqualTo(timers);
        assertThat(answeredOn(nodeHistory, core.redis().ioLoop())).as("the node's path, on its client's loop")
            .isTrue();
        // Same Redis, same write-back: a delete through the API's path is pending for the job.
        join(api.delete(UID, List.of(item(Business.VIDEO, 2))));
        assertThat(core.aggregator().pendingItems()).isEqualTo(1);
      }
      assertThatThrownBy(() -> join(api.progress(UID, List.of(item(Business.VIDEO, 1)))))
          .as("the API's Redis client closed with the core").isInstanceOf(AssertionError.class)
          .hasMessage("stage failed");
      assertThatThrownBy(() -> join(otherApi.progress(UID, List.of(item(Business.VIDEO, 1)))))
          .as("every API client closed with the core").isInstanceOf(AssertionError.class)
          .hasMessage("stage failed");
      assertThatThrownBy(() -> closedCore.historyOn(loop)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("after close");
    } finally {
      group.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
    }
  }

  private static long threadsNamed(String prefix) {
    return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().startsWith(prefix))
        .count();
  }
}
