package io.playline.core.aggregate;

import static io.playline.core.aggregate.TestRecords.changes;
import static io.playline.core.aggregate.TestRecords.item;
import static io.playline.core.aggregate.TestRecords.upserts;
import static io.playline.core.aggregate.TestRecords.video;
import static io.playline.core.aggregate.WriteBackFixture.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.playline.core.publish.FlakyProducer;
import io.playline.core.publish.TopicReader;
import io.playline.core.write.RecoveryEntry;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.ManualTime;
import io.playline.testing.RealKafkaExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The write-back while Kafka is unreachable: retries, merges, bounded memory. */
@ExtendWith(RealKafkaExtension.class)
class WriteBackOutageTest {
  private WriteBackFixture f;
  private FlakyProducer flaky;
  private final long now = System.currentTimeMillis();

  @BeforeEach
  void setUp(KafkaNamespace kafka) {
    f = new WriteBackFixture(kafka);
    flaky = new FlakyProducer(f.producer);
    flaky.down(true);
  }

  @AfterEach
  void tearDown() {
    f.close();
  }

  @Test
  void keepsFailedChangesAndRetriesThemMergedWithNewerWrites() throws Exception {
    WriteBackAggregator agg = f.aggregator(flaky, Map.of("writeback.flush.interval", "1h",
        "writeback.max.pending", "2", "writeback.retry.backoff.max", "200ms"));
    write(agg, now, video(1, 10, 1_000, now - 100), video(2, 10, 1, now - 100));
    await().atMost(Duration.ofSeconds(10)).until(() -> f.metrics.sendFailureCount() >= 2);
    assertThat(agg.pendingItems()).isEqualTo(2);
    // Not acknowledged: the recovery-log entry stays in Redis.
    assertThat(f.trimmed).isEmpty();

    write(agg, now + 1, video(1, 10, 2_000, now - 50), video(3, 10, 1, now - 50));
    flaky.down(false);
    await().atMost(Duration.ofSeconds(10)).until(() -> f.trimmed.size() == 2);
    assertThat(f.trimmed).containsExactlyInAnyOrder(WriteBackFixture.entry(now), WriteBackFixture.entry(now + 1));

    List<ConsumerRecord<byte[], byte[]>> records = f.reader().readUntil(r -> upserts(r).size() >= 3);
    assertThat(upserts(records)).extracting(HistoryRecord::getUid, HistoryRecord::getProgressMs)
        .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(1L, 2_000L),
            org.assertj.core.groups.Tuple.tuple(2L, 1L), org.assertj.core.groups.Tuple.tuple(3L, 1L));
    await().atMost(Duration.ofSeconds(10)).until(() -> agg.pendingItems() == 0);
    agg.close();
    assertThat(upserts(f.reader().readUpToSentinels())).hasSize(3);
    assertThat(f.metrics.droppedCount()).isZero();
  }

  /**
   * One write call's entry lists users of several partitions: it stays while any of them is not
   * acknowledged, even once the others are, and goes with the last one.
   */
  @Test
  void aLogEntryStaysUntilEveryPartitionCarryingItsItemsIsAcknowledged() throws Exception {
    WriteBackAggregator agg = f.aggregator(flaky, Map.of("writeback.flush.interval", "1h",
        "writeback.max.pending", "2", "writeback.retry.backoff.max", "200ms"));
    long other = 2;
    while (UserPartitions.of(other, KafkaNamespace.PARTITIONS) == UserPartitions.of(1, KafkaNamespace.PARTITIONS)) {
      other++;
    }
    flaky.down(false);
    flaky.failPartition(UserPartitions.of(1, KafkaNamespace.PARTITIONS));
    TopicReader reader = f.reader();
    write(agg, now, video(1, 10, 1, now - 100), video(other, 10, 1, now - 100));

    long otherUser = other;
    reader.readUntil(r -> upserts(r).stream().anyMatch(u -> u.getUid() == otherUser));
    await().atMost(Duration.ofSeconds(10)).until(() -> f.metrics.sendFailureCount() >= 1 && agg.pendingItems() == 1);
    assertThat(f.trimmed).as("user 1's write is not acknowledged yet").isEmpty();

    flaky.failPartition(-1);
    await().atMost(Duration.ofSeconds(10)).until(() -> f.trimmed.size() == 1);
    assertThat(f.trimmed).containsExactly(WriteBackFixture.entry(now));
    assertThat(agg.pendingItems()).isZero();
  }

  @Test
  void dropsTheOldestUpsertsOverTheHardCapAndSendsTheRest() throws Exception {
    WriteBackAggregator agg = f.aggregator(flaky, Map.of("writeback.flush.interval", "1h",
        "writeback.max.pending", "10", "writeback.max.pending.hard", "40", "writeback.retry.backoff.max", "200ms"));
    for (long uid = 1; uid <= 200; uid++) {
      write(agg, now + uid, video(uid, 1, 1, now));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> f.metrics.droppedCount() >= 200 - 40 - 10);
    assertThat(agg.pendingItems()).isLessThanOrEqualTo(40 + 10);

    flaky.down(false);
    agg.close();

    Set<Long> arrived = upserts(f.reader().readUpToSentinels()).stream().map(HistoryRecord::getUid)
        .collect(Collectors.toSet());
    assertThat(arrived.size() + (long) f.metrics.droppedCount()).isEqualTo(200);
    // What survives is the hard cap's worth: the newest writes, and the failed batch being retried
    // when the flush thread took one early (then it holds the first uids: which of the oldest survive
    // depends on when the first flush ran; the drop order itself is PendingChangesTest's).
    assertThat(arrived).hasSizeLessThanOrEqualTo(40 + 10);
    assertThat(arrived).containsAll(LongStream.rangeClosed(191, 200).boxed().toList());
    // A dropped upsert's entry stays for the job's recovery sweep: no entry of a dropped user's
    // write is released (uid u was written with entry now + u).
    Set<RecoveryEntry> released = Set.copyOf(f.trimmed);
    for (long uid = 1; uid <= 200; uid++) {
      if (!arrived.contains(uid)) {
        assertThat(released).as("entry of dropped uid %s", uid).doesNotContain(WriteBackFixture.entry(now + uid));
      }
    }
  }

  /**
   * While Kafka fails, every write call adds a recovery-log entry even when it only replaces the same
   * item: past writeback.max.pending.hard entries the node forgets them (they stay in Redis for the
   * job's sweep), so its memory is bounded by entries too, and it never releases a forgotten one.
   */
  @Test
  void forgetsTheLogEntriesOverTheHardCapWhileKafkaFails() throws Exception {
    WriteBackAggregator agg = f.aggregator(flaky, Map.of("writeback.flush.interval", "1h",
        "writeback.max.pending", "10", "writeback.max.pending.hard", "40", "writeback.retry.backoff.max", "100ms"));
    // Ten items start a flush that fails: from then on a send is retried (and a snapshot taken) every backoff.
    for (long uid = 1001; uid <= 1010; uid++) {
      write(agg, now, video(uid, 10, 1, now));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> f.metrics.sendFailureCount() >= 1);
    for (int call = 1; call <= 200; call++) {
      write(agg, now + call, video(1, 10, call, now + call));
    }
    // A failed send after the last write: its snapshot merged every call's entry into the carry.
    double failures = f.metrics.sendFailureCount();
    await().atMost(Duration.ofSeconds(10)).until(() -> f.metrics.sendFailureCount() >= failures + 2);
    assertThat(f.metrics.droppedCount()).as("one item: no upsert dropped").isZero();

    flaky.down(false);
    await().atMost(Duration.ofSeconds(10)).until(() -> agg.pendingItems() == 0);
    agg.close();
    List<HistoryRecord> arrived = upserts(f.reader().readUpToSentinels());
    assertThat(arrived).hasSize(11).filteredOn(r -> r.getUid() == 1).extracting(HistoryRecord::getProgressMs)
        .containsExactly(200L);
    assertThat(f.trimmed).as("at most the hard cap's worth of entries held and released").hasSizeLessThanOrEqualTo(40)
        .doesNotContain(WriteBackFixture.entry(now + 1));
  }

  @Test
  void whileASendBlocksNewWritesDoNotPileUpBesideAFullCarry() throws Exception {
    WriteBackAggregator agg = f.aggregator(flaky, Map.of("writeback.flush.interval", "1h",
        "writeback.max.pending", "10", "writeback.max.pending.hard", "40", "writeback.retry.backoff.max", "200ms"));
    // Kafka refuses: the unsent changes are trimmed to the hard cap.
    for (long uid = 1; uid <= 100; uid++) {
      write(agg, now + uid, video(uid, 1, 1, now));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> f.metrics.droppedCount() >= 100 - 40 - 10);
    // Then it hangs (metadata never comes): the next send blocks with a full carry.
    flaky.blockSends();
    flaky.down(false);
    await().atMost(Duration.ofSeconds(10)).until(() -> flaky.blockedSends() >= 1);
    for (long uid = 1001; uid <= 1200; uid++) {
      write(agg, now + uid, video(uid, 1, 1, now));
    }
    // Beside the carry only the newest max.pending upserts wait: pending + unsent within hard + max.pending.
    assertThat(agg.pendingItems()).isLessThanOrEqualTo(40 + 10);

    flaky.unblockSends();
    agg.close();
    Set<Long> arrived = upserts(f.reader().readUpToSentinels()).stream().map(HistoryRecord::getUid)
        .collect(Collectors.toSet());
    assertThat(arrived.size() + (long) f.metrics.droppedCount()).isEqualTo(300);
    assertThat(arrived).containsAll(LongStream.rangeClosed(1191, 1200).boxed().toList());
  }

  @Test
  void refusesDeletesOverTheTombstoneCapButNeverDropsThem() throws Exception {
    WriteBackAggregator agg = f.aggregator(flaky, Map.of("writeback.flush.interval", "1h",
        "writeback.max.pending", "2", "writeback.max.pending.tombstones", "5", "writeback.retry.backoff.max", "200ms"));
    for (long oid = 1; oid <= 5; oid++) {
      agg.delete(1, List.of(item(Business.VIDEO, oid)), now, new byte[] {'1', ':', '~', (byte) ('0' + oid)});
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> f.metrics.sendFailureCount() >= 1);
    assertThatThrownBy(() -> agg.clear(1, List.of(), now, new byte[] {'1', ':', '~', 'c'})).isInstanceOf(WriteBackFullException.class);

    flaky.down(false);
    agg.close();

    List<HistoryChange> changes = changes(f.reader().readUpToSentinels());
    assertThat(changes.stream().flatMap(c -> c.getDeletesList().stream()).map(d -> d.getItem().getOid()))
        .containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L);
    assertThat(changes).allSatisfy(c -> assertThat(c.getClearsList()).isEmpty());
  }

  @Test
  void retriesAfterABackoffThatDoublesUpToItsMaxAndResetsOnSuccess() throws Exception {
    ManualTime time = new ManualTime();
    WriteBackAggregator agg = f.aggregator(flaky, Map.of("writeback.flush.interval", "1h",
        "writeback.max.pending", "1", "writeback.retry.backoff.max", "400ms"), time);
    await().atMost(Duration.ofSeconds(10)).until(() -> time.waiting() == 1);
    write(agg, now, video(1, 10, 1_000, now - 100)); // max.pending reached: sent at once, and refused
    awaitFailuresAndSleep(time, 1);

    int failures = 1;
    for (long backoffMs : new long[] {100, 200, 400, 400}) {
      time.advance(Duration.ofMillis(backoffMs - 1));
      assertThat(time.waiting()).as("still backing off %d ms", backoffMs).isEqualTo(1);
      assertThat(f.metrics.sendFailureCount()).isEqualTo(failures);
      time.advance(Duration.ofMillis(1));
      awaitFailuresAndSleep(time, ++failures);
    }

    flaky.down(false);
    time.advance(Duration.ofMillis(400));
    TopicReader reader = f.reader();
    assertThat(upserts(reader.readAtLeast(1))).extracting(HistoryRecord::getUid).containsExactly(1L);
    await().atMost(Duration.ofSeconds(10)).until(() -> agg.pendingItems() == 0 && time.waiting() == 1);
    // Sends work again: the next early flush goes at once, with no backoff to wait out.
    write(agg, now + 1, video(2, 10, 1_000, now - 50));
    assertThat(upserts(reader.readAtLeast(2))).extracting(HistoryRecord::getUid).containsExactly(1L, 2L);
    assertThat(f.metrics.sendFailureCount()).isEqualTo(failures);
  }

  /** Waits until the flush thread has failed {@code failures} sends and sleeps again. */
  private void awaitFailuresAndSleep(ManualTime time, int failures) {
    await().atMost(Duration.ofSeconds(10))
        .until(() -> f.metrics.sendFailureCount() == failures && time.waiting() == 1);
  }
}
