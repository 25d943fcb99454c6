package io.playline.core.aggregate;

import static io.playline.core.aggregate.TestRecords.batch;
import static io.playline.core.aggregate.TestRecords.changes;
import static io.playline.core.aggregate.TestRecords.item;
import static io.playline.core.aggregate.TestRecords.upserts;
import static io.playline.core.aggregate.TestRecords.video;
import static io.playline.core.aggregate.WriteBackFixture.write;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.playline.core.publish.TopicReader;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryChangeBatch;
import io.playline.proto.v1.HistoryClear;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemDelete;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.ManualTime;
import io.playline.testing.RealKafkaExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealKafkaExtension.class)
class WriteBackAggregatorTest {
  private static final Map<String, String> ON_CLOSE_ONLY = Map.of("writeback.flush.interval", "1h");

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
  void latestViewTimeWinsPerItem() throws Exception {
    WriteBackAggregator agg = f.aggregator(ON_CLOSE_ONLY);
    write(agg, now, video(1, 10, 1_000, now - 300), video(1, 11, 5, now - 100));
    write(agg, now + 1, video(1, 10, 3_000, now - 100));
    write(agg, now + 2, video(1, 10, 2_000, now - 200), TestRecords.record(1, Business.AUDIO, 10, 7, now - 400));
    agg.close();

    List<ConsumerRecord<byte[], byte[]>> records = f.reader().readUpToSentinels();

    assertThat(records).hasSize(1);
    assertThat(upserts(records)).extracting(HistoryRecord::getBusiness, HistoryRecord::getOid,
        HistoryRecord::getProgressMs).containsExactlyInAnyOrder(
        org.assertj.core.groups.Tuple.tuple(Business.VIDEO, 10L, 3_000L),
        org.assertj.core.groups.Tuple.tuple(Business.VIDEO, 11L, 5L),
        org.assertj.core.groups.Tuple.tuple(Business.AUDIO, 10L, 7L));
  }

  @Test
  void manyUsersInOneFlushTakeAtMostOneRecordPerPartition() throws Exception {
    WriteBackAggregator agg = f.aggregator(ON_CLOSE_ONLY);
    Set<String> written = new HashSet<>();
    for (int b = 0; b < 10; b++) {
      List<HistoryRecord> batch = new ArrayList<>();
      for (long uid = b * 100L + 1; uid <= b * 100L + 100; uid++) {
        batch.add(video(uid, 1, 1, now));
        batch.add(video(uid, 2, 1, now));
        written.add(uid + ":1");
        written.add(uid + ":2");
      }
      write(agg, now + b, batch.toArray(HistoryRecord[]::new));
    }
    agg.close();

    List<ConsumerRecord<byte[], byte[]>> records = f.reader().readUpToSentinels();

    assertThat(records.size()).isLessThanOrEqualTo(KafkaNamespace.PARTITIONS);
    for (ConsumerRecord<byte[], byte[]> r : records) {
      assertThat(new String(r.key(), US_ASCII)).isEqualTo(Integer.toString(r.partition()));
      assertThat(batch(r).getNodeId()).isEqualTo("test-node");
    }
    List<String> arrived = upserts(records).stream().map(u -> u.getUid() + ":" + u.getOid()).toList();
    assertThat(arrived).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(written);
    assertThat(changes(records)).extracting(HistoryChange::getUid).doesNotHaveDuplicates().hasSize(1_000);
    assertThat(f.metrics.recordsSentCount()).isEqualTo(records.size());
  }

  @Test
  void aUsersChangesAlwaysLandInTheSamePartition() throws Exception {
    WriteBackAggregator agg = f.aggregator(Map.of("writeback.flush.interval", "1h", "writeback.max.pending", "100"));
    for (int round = 1; round <= 10; round++) {
      List<HistoryRecord> batch = new ArrayList<>();
      for (long uid = 1; uid <= 100; uid++) {
        batch.add(video(uid * 7_919, round, round, now + round));
      }
      write(agg, now + round, batch.toArray(HistoryRecord[]::new));
      // 100 pending items trigger a flush: wait for its ack so each round is a flush of its own.
      await().atMost(Duration.ofSeconds(30)).until(() -> agg.pendingItems() == 0);
    }
    agg.close();

    List<ConsumerRecord<byte[], byte[]>> records = f.reader().readUpToSentinels();

    assertThat(records.size()).isGreaterThanOrEqualTo(10);
    Map<Long, Set<Integer>> partitionsByUser = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      for (HistoryChange c : batch(r).getChangesList()) {
        partitionsByUser.computeIfAbsent(c.getUid(), u -> new HashSet<>()).add(r.partition());
      }
    }
    assertThat(partitionsByUser).hasSize(100);
    assertThat(partitionsByUser.values()).allSatisfy(p -> assertThat(p).hasSize(1));
    assertThat(partitionsByUser.values().stream().flatMap(Set::stream).distinct()).hasSizeGreaterThan(1);
    assertThat(upserts(records)).hasSize(100 * 10);
  }

  /**
   * Kafka's acknowledgement is what releases a write's recovery-log entry: once everything a flush
   * sent is acked, every entry of its upserts goes, also that of a write a later one replaced. The
   * changes carry no mark stamp for the job; deletes and clears carry their own marks.
   */
  @Test
  void kafkasAckReleasesTheLogEntriesOfTheFlushAndControlsCarryTheirMarks() throws Exception {
    WriteBackAggregator agg = f.aggregator(ON_CLOSE_ONLY);
    write(agg, 700, video(1, 1, 1, now));
    write(agg, 900, video(1, 2, 1, now));
    write(agg, 800, video(1, 1, 2, now + 1)); // replaces the 700 write of item 1: both entries go on its ack
    write(agg, 500, video(2, 1, 1, now));
    agg.delete(3, List.of(item(Business.VIDEO, 1), item(Business.VIDEO, 2)), now, bytes("3:~a"));
    agg.clear(3, List.of(), now + 1, bytes("3:~b"));
    assertThat(f.trimmed).isEmpty();
    agg.close();

    Map<Long, HistoryChange> byUser = new HashMap<>();
    changes(f.reader().readUpToSentinels()).forEach(c -> byUser.put(c.getUid(), c));
    assertThat(byUser.get(1L).getUpsertsMarkStampUs()).isZero();
    assertThat(byUser.get(2L).getUpsertsMarkStampUs()).isZero();
    assertThat(byUser.get(1L).getControlMarksList()).isEmpty();
    assertThat(byUser.get(3L).getControlMarksList()).extracting(com.google.protobuf.ByteString::toStringUtf8)
        .containsExactlyInAnyOrder("3:~a", "3:~b");
    assertThat(byUser.get(3L).getDeletesCount()).isEqualTo(2);
    assertThat(f.trimmed).containsExactlyInAnyOrder(WriteBackFixture.entry(700), WriteBackFixture.entry(900),
        WriteBackFixture.entry(800), WriteBackFixture.entry(500));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }

  @Test
  void splitsRecordsAtMaxRecordBytes() throws Exception {
    WriteBackAggregator agg = f.aggregator(Map.of("writeback.flush.interval", "1h",
        "writeback.max.record.bytes", "1024"));
    List<HistoryRecord> batch = new ArrayList<>();
    for (long uid = 1; uid <= 300; uid++) {
      batch.add(video(uid, 1, 1, now));
    }
    for (long oid = 1; oid <= 100; oid++) {
      batch.add(video(5_000, oid, 1, now));
    }
    write(agg, now, batch.toArray(HistoryRecord[]::new));
    agg.close();

    List<ConsumerRecord<byte[], byte[]>> records = f.reader().readUpToSentinels();

    assertThat(records.size()).isGreaterThan(KafkaNamespace.PARTITIONS);
    assertThat(records).allSatisfy(r -> assertThat(r.value().length).isLessThanOrEqualTo(1024));
    assertThat(records).allSatisfy(r -> assertThat(batch(r).getChangesList()).extracting(HistoryChange::getUid)
        .doesNotHaveDuplicates());
    assertThat(upserts(records).stream().map(u -> u.getUid() + ":" + u.getOid()).toList())
        .doesNotHaveDuplicates().hasSize(400);
  }

  @Test
  void flushesWhenEachIntervalHasPassedAndNotBefore() {
    ManualTime time = new ManualTime();
    WriteBackAggregator agg = f.aggregator(f.producer, Map.of("writeback.flush.interval", "1s"), time);
    TopicReader reader = f.reader();
    await().atMost(Duration.ofSeconds(10)).until(() -> time.waiting() == 1);
    write(agg, now, video(1, 1, 1, now));
    time.advance(Duration.ofMillis(999));
    assertThat(time.waiting()).isEqualTo(1); // the flush thread still sleeps: nothing was sent
    assertThat(f.metrics.recordsSentCount()).isZero();

    time.advance(Duration.ofMillis(1));
    assertThat(upserts(reader.readAtLeast(1))).extracting(HistoryRecord::getUid).containsExactly(1L);
    // The next interval counts from that flush.
    await().atMost(Duration.ofSeconds(10)).until(() -> agg.pendingItems() == 0 && time.waiting() == 1);
    double sent = f.metrics.recordsSentCount();
    write(agg, now + 1, video(2, 1, 1, now));
    time.advance(Duration.ofMillis(999));
    assertThat(time.waiting()).isEqualTo(1);
    assertThat(f.metrics.recordsSentCount()).isEqualTo(sent);

    time.advance(Duration.ofMillis(1));
    assertThat(upserts(reader.readAtLeast(2))).extracting(HistoryRecord::getUid).containsExactly(1L, 2L);
    await().atMost(Duration.ofSeconds(10)).until(() -> agg.pendingItems() == 0);
  }

  @Test
  void flushesEarlyWhenPendingItemsReachTheMax() throws Exception {
    WriteBackAggregator agg = f.aggregator(Map.of("writeback.flush.interval", "1h", "writeback.max.pending", "50"));
    TopicReader reader = f.reader();
    for (long uid = 1; uid <= 49; uid++) {
      write(agg, now, video(uid, 1, 1, now));
    }
    assertThat(reader.readUpToSentinels()).isEmpty();
    assertThat(agg.pendingItems()).isEqualTo(49);

    write(agg, now, video(50, 1, 1, now));

    assertThat(upserts(reader.readUntil(r -> upserts(r).size() >= 50))).hasSize(50);
  }

  @Test
  void deletesAndClearsAreCarriedAndDiscardOlderUpserts() throws Exception {
    WriteBackAggregator agg = f.aggregator(ON_CLOSE_ONLY);
    write(agg, now, video(1, 10, 1, now - 100));
    agg.delete(1, List.of(item(Business.VIDEO, 10)), now - 50, bytes("1:~d"));
    write(agg, now + 1, video(1, 11, 1, now - 10));
    agg.clear(1, List.of(Business.COMIC), now - 20, bytes("1:~c"));
    agg.clear(2, List.of(), now - 5, bytes("2:~c"));
    assertThatThrownBy(() -> agg.delete(0, List.of(item(Business.VIDEO, 1)), now, bytes("0:~d")))
        .isInstanceOf(IllegalArgumentException.class);
    agg.close();

    Map<Long, HistoryChange> byUser = new HashMap<>();
    changes(f.reader().readUpToSentinels()).forEach(c -> byUser.put(c.getUid(), c));

    assertThat(byUser).containsOnlyKeys(1L, 2L);
    HistoryChange one = byUser.get(1L);
    assertThat(one.getUpsertsList()).extracting(HistoryRecord::getOid).containsExactly(11L);
    assertThat(one.getDeletesList()).containsExactly(ItemDelete.newBuilder()
        .setItem(item(Business.VIDEO, 10)).setDeleteTimeMs(now - 50).build());
    assertThat(one.getClearsList()).containsExactly(HistoryClear.newBuilder()
        .addBusinesses(Business.COMIC).setClearTimeMs(now - 20).build());
    assertThat(byUser.get(2L).getClearsList()).containsExactly(HistoryClear.newBuilder()
        .setClearTimeMs(now - 5).build());
  }

  @Test
  void abandonSendsNothing() throws Exception {
    WriteBackAggregator agg = f.aggregator(ON_CLOSE_ONLY);
    for (long uid = 1; uid <= 100; uid++) {
      write(agg, now, video(uid, 1, 1, now));
    }
    agg.delete(1, List.of(item(Business.VIDEO, 2)), now, bytes("1:~d"));

    agg.abandon();
    f.producer.flush();

    assertThat(f.reader().readUpToSentinels()).isEmpty();
    assertThat(agg.pendingItems()).isZero();
    assertThatThrownBy(() -> agg.delete(1, List.of(item(Business.VIDEO, 3)), now, bytes("1:~d")))
        .isInstanceOf(IllegalStateException.class);
  }
}
