package io.playline.node.write;

import static io.playline.node.write.BatcherHarness.LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How the batcher cuts batches — by size, by delay, around the round trips in flight — on a clock
 * the test advances, against a writer whose round trips the test completes by hand (no Redis
 * involved: what is under test is when batches leave, not what they do).
 */
class WriteBatcherTest {
  private final BatcherHarness h = new BatcherHarness();

  @AfterEach
  void stop() {
    h.close();
  }

  @Test
  void eagerBatchingSendsAtOnceWhenNothingIsInFlightAndGroupsWhileARoundTripIsOut() {
    h.start(512, LONG, true);
    h.submit(1);
    // Nothing in flight: the heartbeat leaves at once, not after the 30 s max delay.
    assertThat(h.batches()).isEqualTo(1);
    h.submit(2);
    h.submit(3);
    h.submit(4);
    // A round trip is out: the next heartbeats wait for it (or the max delay), forming one batch.
    h.advance(LONG.minusNanos(1));
    assertThat(h.batches()).isEqualTo(1);
    h.writer.answer(0);
    h.settle();
    assertThat(h.batches()).isEqualTo(2);
    assertThat(h.writer.heartbeats(1)).isEqualTo(3);
    h.writer.answer(1);
    h.settle();
    assertThat(h.acked).hasValue(4);
  }

  @Test
  void aHeartbeatsWaitIsTimedFromWhenItWasReadAndItsBatchRoundTripOncePerHeartbeat() {
    h.start(512, LONG, true);
    h.submitRead(1, Duration.ofSeconds(2));
    assertThat(h.batches()).isEqualTo(1);
    h.submit(2);
    h.submit(3);
    h.writer.answer(0);
    h.settle();
    assertThat(h.batches()).isEqualTo(2);
    h.writer.answer(1);
    h.settle();
    assertThat(h.acked).hasValue(3);
    StageHistogram wait = h.batcher().metrics().stage("wait");
    assertThat(wait.count()).isEqualTo(3);
    assertThat(wait.sumMicros()).as("heartbeat 1 waited its 2 s, 2 and 3 no time").isEqualTo(2_000_000L);
    // Two batches, three heartbeats: the round trip counts once per heartbeat.
    assertThat(h.batcher().metrics().stage("redis").count()).isEqualTo(3);
    assertThat(h.registry.get("playline.heartbeat.batch.latency").timer().count()).isEqualTo(2);
  }

  @Test
  void volumeAndFirstTodaySkipsAreCountedPerBatchForEveryHeartbeatInIt() {
    h.start(512, LONG, true);
    h.submitUnechoed(5);
    h.submit(6);
    h.submitUnechoed(7);
    h.writer.answer(0);
    h.settle();
    h.submitUnechoed(5);
    h.submit(8);
    h.writer.answer(1);
    h.settle();
    h.writer.answer(2);
    h.settle();
    assertThat(h.batches()).isEqualTo(3);
    assertThat(h.counted("playline.heartbeats")).isEqualTo(5);
    assertThat(h.counted("playline.heartbeat.events")).isEqualTo(5);
    assertThat(h.counted("playline.heartbeat.acks")).isEqualTo(5);
    assertThat(h.counted("playline.first.today", "result", "echo_skip")).as("6 and 8 echoed today").isEqualTo(2);
    assertThat(h.counted("playline.first.today", "result", "redis_check")).as("5 and 7, once each").isEqualTo(2);
    assertThat(h.counted("playline.first.today", "result", "local_skip")).as("5 again: known here").isEqualTo(1);
  }

  @Test
  void withoutEagerBatchingAHeartbeatWaitsOutTheMaxDelay() {
    h.start(512, Duration.ofMillis(600), false);
    h.submit(1);
    h.advance(Duration.ofMillis(600).minusNanos(1));
    assertThat(h.batches()).isZero();
    h.advance(Duration.ofNanos(1));
    assertThat(h.batches()).isEqualTo(1);
  }

  @Test
  void theAckAndNodeLatenciesCountTheBatchingWindowWhereTheBatchLatencyCountsOnlyTheRoundTrip() {
    h.start(512, Duration.ofMillis(400), false);
    h.submit(1);
    h.advance(Duration.ofMillis(400));
    assertThat(h.batches()).isEqualTo(1);
    h.advance(Duration.ofMillis(50));
    h.writer.answer(0);
    h.settle();
    assertThat(h.acked).hasValue(1);
    assertThat(h.maxMillis("playline.heartbeat.ack.latency")).isEqualTo(450);
    assertThat(h.maxMillis("playline.heartbeat.batch.latency")).isEqualTo(50);
    // The connection's answer is timed on the batcher's clock too: virtual time, not the machine's.
    StageHistogram node = h.batcher().metrics().stage("node");
    assertThat(node.count()).isEqualTo(1);
    assertThat(node.sumMicros()).isEqualTo(450_000L);
  }

  @Test
  void aBatchWaitingOnARoundTripStillLeavesAfterTheMaxDelay() {
    h.start(512, Duration.ofMillis(200), true);
    h.submit(1);
    assertThat(h.batches()).isEqualTo(1);
    h.submit(2);
    // The first round trip never answers; the second batch goes when its max delay is up.
    h.advance(Duration.ofMillis(200).minusNanos(1));
    assertThat(h.batches()).isEqualTo(1);
    h.advance(Duration.ofNanos(1));
    assertThat(h.batches()).isEqualTo(2);
    assertThat(h.writer.heartbeats(1)).isEqualTo(1);
  }

  @Test
  void aFullBatchLeavesWithoutWaiting() {
    h.start(3, LONG, true);
    h.submit(1);
    assertThat(h.batches()).isEqualTo(1);
    for (int uid = 2; uid <= 7; uid++) {
      h.submit(uid);
    }
    // Round trip 1 is still out and the max delay is 30 s: only the size limit sends these.
    assertThat(h.batches()).isEqualTo(3);
    assertThat(h.writer.heartbeats(1)).isEqualTo(3);
    assertThat(h.writer.heartbeats(2)).isEqualTo(3);
  }

  @Test
  void aBatchThatFindsNoFreeInFlightSlotInTimeFailsInsteadOfWaitingForever() {
    h.start(new BatcherConfig(512, Duration.ZERO, true, 1024, 1, Duration.ofMillis(300)));
    h.submit(1);
    assertThat(h.batches()).isEqualTo(1);
    h.submit(2);
    // Round trip 1 never answers and it holds the only slot: heartbeat 2 fails with an error.
    h.advance(Duration.ofMillis(300).minusNanos(1));
    assertThat(h.failed).hasValue(0);
    h.advance(Duration.ofNanos(1));
    assertThat(h.failed).hasValue(1);
    assertThat(h.batches()).isEqualTo(1);
    assertThat(h.acked).hasValue(0);
    assertThat(h.counted("playline.heartbeats")).as("the failed heartbeat counts as taken too").isEqualTo(2);
    assertThat(h.counted("playline.heartbeat.failed")).isEqualTo(1);
  }

  @Test
  void aFullQueueRefusesHeartbeats() {
    h.start(new BatcherConfig(1, Duration.ZERO, true, 2, 1, Duration.ofSeconds(30)));
    h.submit(1);
    assertThat(h.batches()).isEqualTo(1);
    // One batch out (the only slot), a full batch waiting: the queue holds 2 more, then refuses.
    h.submit(2);
    assertThat(h.batcher().metrics().queueDepth()).isZero();
    h.submit(3);
    h.submit(4);
    HistoryRecord r = HistoryRecord.newBuilder().setUid(5).setBusiness(Business.VIDEO).setOid(7).build();
    assertThat(h.batcher().submit(new PendingWrite(5, List.of(r), false, "s", "d", "test",
        (outcome, firstToday, day, error) -> { }, h.batcher().nanoTime()))).isFalse();
  }

  @Test
  void closeSendsWhatIsQueuedAndWaitsForTheAnswers() {
    h.start(512, LONG, false);
    h.submit(1);
    h.submit(2);
    Thread answering = new Thread(() -> {
      await().atMost(Duration.ofSeconds(5)).until(() -> h.batches() == 1);
      h.writer.answer(0);
    });
    answering.start();
    h.closeBatcher();
    // Without close the batch would have waited 30 s; close sent it and returned after its answer.
    assertThat(h.acked).hasValue(2);
  }
}
