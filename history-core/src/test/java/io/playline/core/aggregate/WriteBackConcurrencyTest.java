package io.playline.core.aggregate;

import static io.playline.core.aggregate.TestRecords.batch;
import static io.playline.core.aggregate.TestRecords.upserts;
import static io.playline.core.aggregate.TestRecords.video;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealKafkaExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealKafkaExtension.class)
class WriteBackConcurrencyTest {
  private static final int WRITERS = 4;
  private static final int BATCHES = 1_500;
  private static final int ITEMS_PER_BATCH = 4;
  private static final long HOT_UID = 9_000_000;

  private WriteBackFixture f;
  private final long now = System.currentTimeMillis();

  @BeforeEach
  void setUp(KafkaNamespace kafka) {
    f = new WriteBackFixture(kafka);
  }

  @AfterEach
  void tearDown() {
    f.close();
  }

  @Test
  void concurrentWritersLoseNothingWhileFlushesRun() throws Exception {
    // A hard cap above everything written: writers outrun flushes here, and nothing may be dropped.
    WriteBackAggregator agg = f.aggregator(Map.of("writeback.flush.interval", "1s", "writeback.max.pending", "300",
        "writeback.max.pending.hard", "1000000"));
    ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    try {
      for (int t = 0; t < WRITERS; t++) {
        int writer = t;
        done.add(writers.submit(() -> {
          start.await();
          writeAll(agg, writer);
          return null;
        }));
      }
      start.countDown();
      for (Future<?> d : done) {
        d.get(60, TimeUnit.SECONDS);
      }
    } finally {
      writers.shutdownNow();
    }
    agg.close();

    List<ConsumerRecord<byte[], byte[]>> records = f.reader().readUpToSentinels();

    // Flushes ran while the writers wrote: the items arrived in many snapshots.
    assertThat(f.registry.get("playline.writeback.flushes").tag("outcome", "success").counter().count())
        .isGreaterThanOrEqualTo(20);
    assertThat(records.stream().map(r -> batch(r).getFlushedAtMs()).distinct().count()).isGreaterThan(1);
    Map<String, Integer> cold = new HashMap<>();
    Map<Long, Long> hotLatest = new HashMap<>();
    for (HistoryRecord u : upserts(records)) {
      if (u.getUid() >= HOT_UID) {
        hotLatest.merge(u.getUid(), u.getViewTimeMs(), Math::max);
      } else {
        cold.merge(u.getUid() + ":" + u.getOid(), 1, Integer::sum);
      }
    }
    assertThat(f.metrics.droppedCount()).isZero();
    assertThat(cold.size()).as("distinct items arrived").isEqualTo(WRITERS * BATCHES * ITEMS_PER_BATCH);
    assertThat(cold.values().stream().filter(n -> n != 1).count()).as("items that arrived more than once").isZero();
    for (int t = 0; t < WRITERS; t++) {
      assertThat(hotLatest).containsEntry(HOT_UID + t, now + BATCHES - 1);
    }
  }

  /** Writer {@code t}: distinct items per batch, plus one hot item rewritten with a newer view time each batch. */
  private void writeAll(WriteBackAggregator agg, int t) {
    for (int i = 0; i < BATCHES; i++) {
      HistoryRecord[] batch = new HistoryRecord[ITEMS_PER_BATCH + 1];
      long uid = t * 1_000L + i % 500 + 1;
      for (int k = 0; k < ITEMS_PER_BATCH; k++) {
        batch[k] = video(uid, (long) i * ITEMS_PER_BATCH + k + 1, k, now);
      }
      batch[ITEMS_PER_BATCH] = video(HOT_UID + t, 1, i, now + i);
      WriteBackFixture.write(agg, System.currentTimeMillis(), batch);
      if (i % 50 == 49) {
        // Let flushes keep up now and then, so many swaps happen while the writers write.
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).until(() -> agg.pendingItems() < 1_000);
      }
    }
  }
}
