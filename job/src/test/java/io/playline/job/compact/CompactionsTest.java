package io.playline.job.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.job.metrics.JobMetrics;
import io.playline.job.sink.HBaseHistorySink;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.RedisNamespace;
import io.playline.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link Compactions}: the job's checks of users after persisted records, and its bounded counts. */
class CompactionsTest extends AbstractCompactionTest {
  @Test
  void theJobChecksAUserAfterEnoughPersistedRecordsAndRollsItUp(RedisNamespace redis, HBaseNamespace hbase)
      throws Exception {
    setUp(redis, hbase, Map.of("history.compact.threshold", "50", "history.compact.keep", "10",
        "history.compact.check.every", "20"));
    Compactions compactions = new Compactions(compactor, config.compaction(), registry, Time.SYSTEM);
    closeables.add(compactions);
    HBaseHistorySink listening = new HBaseHistorySink(hbase.connection(), config,
        new JobMetrics(registry, Time.SYSTEM), compactions::persisted, Time.SYSTEM);
    compactions.start();
    long uid = 7300;
    AtomicLong oid = new AtomicLong();
    Runnable write30 = () -> {
      List<HistoryRecord> records = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        long n = oid.incrementAndGet();
        records.add(record(uid, Business.VIDEO, n, now - (1000 - n) * 60_000L));
      }
      listening.write(List.of(HistoryChange.newBuilder().setUid(uid).addAllUpserts(records).build()));
    };
    // 30 records: past check.every, so checked, but within the threshold.
    write30.run();
    await().atMost(Duration.ofSeconds(60)).until(() -> checks("not_needed") == 1);
    assertThat(index(uid).index()).isNull();
    // 30 more: checked again, 60 live cells, rolled up to the newest 10.
    write30.run();
    await().atMost(Duration.ofSeconds(60)).until(() -> checks("rolled_up") == 1);
    assertThat(liveCells(uid)).isEqualTo(10);
    assertThat(index(uid).index().getChunks(0).getNewestItem().getOid()).isEqualTo(50);
    assertThat(listAll(uid)).hasSize(60);
  }

  private double checks(String outcome) {
    return registry.find("playline.job.compact.checks").tag("outcome", outcome).counters().stream()
        .mapToDouble(c -> c.count()).sum();
  }

  @Test
  void countsStayBoundedAndKeepTheHeavyUsers(RedisNamespace redis, HBaseNamespace hbase) throws Exception {
    setUp(redis, hbase, Map.of("history.compact.check.every", "1000", "history.compact.tracked.users", "100"));
    Compactions compactions = new Compactions(compactor, config.compaction(), registry, Time.SYSTEM);
    compactions.persisted(1, 900);
    for (long uid = 2; uid < 1000; uid++) {
      compactions.persisted(uid, 1);
      assertThat(compactions.tracked()).isLessThanOrEqualTo(100);
    }
    // The heavy user kept its count: 100 more records reach the check (queued, not yet run: not started).
    compactions.persisted(1, 100);
    assertThat(compactions.tracked()).isLessThan(100);
    assertThat(registry.find("playline.job.compact.skipped").counter().count()).isZero();
  }
}
