package io.playline.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.ManagedChannel;
import io.netty.util.concurrent.EventExecutor;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.GetProgressResponse;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.ItemKey;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The internal API runs on I/O loops of its own ({@code api.io.threads}), so on a node that also
 * serves players a backend's requests never wait in line behind a player's heartbeats, nor the other
 * way round: with every player loop held busy (the core's Redis client on one of them, as by
 * default), both API ports still answer, their queries read over the API's own Redis client.
 */
@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class, RealHBaseExtension.class})
class ApiLoopsTest {
  /** Progress of one item nobody played: an empty answer, read from Redis alone. */
  private static final GetProgressRequest PROGRESS = GetProgressRequest.newBuilder().setUid(7)
      .addItems(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(1)).build();

  @Test
  void theApiAnswersWhileEveryPlayerLoopIsBusy(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase)
      throws Exception {
    // io.redis.shared stays at its default: the core's Redis client (the players' reads and writes)
    // lives on a player loop, held below; the API's queries go through a client of their own.
    try (TestApi t = TestApi.startBesidePlayers(redis, kafka, hbase, Map.of("io.threads", "2", "api.io.threads", "1",
        "api.http.port", "0"))) {
      CountDownLatch release = new CountDownLatch(1);
      List<CountDownLatch> held = hold(t.node().loops().workers(), release);
      ManagedChannel channel = null;
      try {
        for (CountDownLatch h : held) {
          assertThat(h.await(30, TimeUnit.SECONDS)).as("player loop held").isTrue();
        }
        channel = t.channel();
        GetProgressResponse answer = HistoryGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
            .getProgress(PROGRESS);
        assertThat(answer.getRecordsCount()).isZero();

        HttpResponse<String> connect = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + t.api().httpAddress().getPort()
                    + "/" + HistoryGrpc.SERVICE_NAME + "/GetProgress"))
            .timeout(Duration.ofSeconds(30)).header("content-type", "application/json")
            .header("authorization", TestApi.bearer())
            .POST(HttpRequest.BodyPublishers.ofString("{\"uid\":\"7\",\"items\":[{\"business\":\"VIDEO\",\"oid\":\"1\"}]}"))
            .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(connect.statusCode()).as(connect.body()).isEqualTo(200);
      } finally {
        release.countDown();
        if (channel != null) {
          channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
      }
    }
  }

  @Test
  void eachApiLoopAnswersOverARedisClientOfItsOwn(RedisNamespace redis, KafkaNamespace kafka, HBaseNamespace hbase)
      throws Exception {
    // Two API loops, the first held: a query arriving on the second is answered over the second's own
    // Redis client. (With one client for the API, on its first loop, no query answers until release.)
    try (TestApi t = TestApi.startBesidePlayers(redis, kafka, hbase, Map.of("io.threads", "1", "api.io.threads", "2",
        "api.http.enabled", "false"))) {
      CountDownLatch release = new CountDownLatch(1);
      List<CountDownLatch> held = hold(List.of(t.node().loops().api().first()), release);
      List<ManagedChannel> channels = new ArrayList<>();
      try {
        assertThat(held.get(0).await(30, TimeUnit.SECONDS)).as("first API loop held").isTrue();
        // Connections are handed to the API's loops in turn: of four, two land on the second loop.
        List<ListenableFuture<GetProgressResponse>> answers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          ManagedChannel channel = t.channel();
          channels.add(channel);
          answers.add(HistoryGrpc.newFutureStub(channel).withDeadlineAfter(120, TimeUnit.SECONDS).getProgress(PROGRESS));
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(answers.stream()
            .filter(ApiLoopsTest::answered).count())
            .as("queries answered while the first API loop is held").isGreaterThanOrEqualTo(1));
        release.countDown();
        for (ListenableFuture<GetProgressResponse> a : answers) {
          assertThat(a.get(60, TimeUnit.SECONDS).getRecordsCount()).isZero();
        }
      } finally {
        release.countDown();
        for (ManagedChannel channel : channels) {
          channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
      }
    }
  }

  /** Whether {@code answer} came, empty as asked; a failed call fails the wait with its cause. */
  private static boolean answered(ListenableFuture<GetProgressResponse> answer) {
    try {
      return answer.isDone() && Futures.getDone(answer).getRecordsCount() == 0;
    } catch (ExecutionException | CancellationException e) {
      throw new AssertionError("a query failed", e);
    }
  }

  /** Holds every loop of {@code loops} until {@code release}; each returned latch opens once its loop is held. */
  private static List<CountDownLatch> hold(Iterable<? extends EventExecutor> loops, CountDownLatch release) {
    List<CountDownLatch> held = new ArrayList<>();
    for (EventExecutor loop : loops) {
      CountDownLatch h = new CountDownLatch(1);
      held.add(h);
      loop.execute(() -> {
        h.countDown();
        try {
          release.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    return held;
  }
}
