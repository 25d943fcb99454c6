package io.playline.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.nio.NioEventLoopGroup;
import io.playline.proto.lite.v1.Business;
import io.playline.proto.lite.v1.HistoryRecord;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A client against a real gateway and the real Redis: connect, report, ack, on both transports. */
@ExtendWith(RealRedisExtension.class)
class ClientStreamTest {
  @ParameterizedTest
  @EnumSource(Wire.class)
  void reportedProgressIsAckedOnceWrittenToRedis(Wire transport, RedisNamespace ns) throws Exception {
    long uid = 501;
    Recorder events = new Recorder();
    try (GatewayFixture gateway = new GatewayFixture(ns);
        AbstractPlaylineClient client = gateway.client(transport, uid, "phone").listener(events).build()) {
      events.awaitCount(ConnectionState.CONNECTED, 1);
      long before = System.currentTimeMillis();
      client.report(Business.VIDEO, 10, 5_000, 600_000);
      client.report(Business.VIDEO, 10, 7_000, 600_000); // only the latest of an item is sent
      client.report(Business.EPISODE, 20, 3, 1_000, 1_200_000);
      client.flush().get(10, TimeUnit.SECONDS);

      HistoryRecord video = gateway.stored(uid, Business.VIDEO, 10);
      assertThat(video).isNotNull();
      assertThat(video.getProgressMs()).isEqualTo(7_000);
      assertThat(video.getDeviceId()).isEqualTo("phone");
      assertThat(video.getPlatform()).isEqualTo("test");
      assertThat(video.getViewTimeMs()).isBetween(before, System.currentTimeMillis());
      HistoryRecord episode = gateway.stored(uid, Business.EPISODE, 20);
      assertThat(episode).isNotNull();
      assertThat(episode.getSubId()).isEqualTo(3);

      assertThat(events.acks).flatExtracting(Ack::events).extracting(AckedEvent::firstView).containsOnly(true)
          .hasSize(2);
      assertThat(events.firstTodays).hasSize(1);
      assertThat(events.firstTodays.get(0)).matches("\\d{4}-\\d{2}-\\d{2}");
      ClientStats stats = client.stats();
      assertThat(stats.eventsReported()).isEqualTo(3);
      assertThat(stats.eventsAcked()).isEqualTo(2);
      assertThat(stats.tokenFetches()).isEqualTo(1);

      // Keep-alives flow at the gateway's interval (1 s here) without reports.
      int acks = events.acks.size();
      await().atMost(Duration.ofSeconds(10)).until(() -> events.acks.size() >= acks + 2);
      assertThat(events.errors).isEmpty();
    }
    assertThat(events.states.get(events.states.size() - 1).state()).isEqualTo(ConnectionState.CLOSED);
  }

  @Test
  void suppliedEventLoopGroupAndCallbackExecutorAreUsedAndLeftRunning(RedisNamespace ns) throws Exception {
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    ExecutorService callbacks = Executors.newSingleThreadExecutor(
        r -> new Thread(r, "app-callbacks"));
    List<String> listenerThreads = new CopyOnWriteArrayList<>();
    try (GatewayFixture gateway = new GatewayFixture(ns);
        PlaylineClient client = gateway.netty(TransportKind.GRPC, 502, "tablet").eventLoopGroup(group)
            .callbackExecutor(callbacks)
            .listener(new PlaylineListener() {
              @Override
              public void onAck(Ack ack) {
                listenerThreads.add(Thread.currentThread().getName());
              }
            }).build()) {
      client.report(Business.AUDIO, 3, 7, 30_000, 200_000);
      client.flush().get(10, TimeUnit.SECONDS);
      assertThat(gateway.stored(502, Business.AUDIO, 3)).isNotNull();
      assertThat(listenerThreads).isNotEmpty().containsOnly("app-callbacks");
    } finally {
      assertThat(group.isShuttingDown()).as("a supplied group belongs to the app").isFalse();
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
      callbacks.shutdown();
    }
  }
}
