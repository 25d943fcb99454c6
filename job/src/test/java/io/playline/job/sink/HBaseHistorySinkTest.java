package io.playline.job.sink;

import static io.playline.job.JobTestEnv.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.playline.core.config.ConfigSource;
import io.playline.core.config.CoreConfig;
import io.playline.core.store.HistoryRowKeys;
import io.playline.job.config.JobConfig;
import io.playline.job.metrics.JobMetrics;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryClear;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemDelete;
import io.playline.proto.v1.ItemKey;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.time.Time;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.regionserver.BloomType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealHBaseExtension.class)
class HBaseHistorySinkTest {
  private static final long UID = 4242;
  private final long base = System.currentTimeMillis() - Duration.ofHours(1).toMillis();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private HBaseNamespace ns;
  private JobConfig config;
  private HBaseHistorySink sink;

  @BeforeEach
  void setUp(HBaseNamespace ns) {
    this.ns = ns;
    config = JobConfig.from(ConfigSource.empty().with(Map.of(
        "hbase.table", ns.table("history").getNameAsString(),
        "hbase.table.regions", "4",
        "hbase.clear.page.size", "2",
        "history.retention", "30d",
        "history.retention.video", "120d",
        "history.retention.live", "7d")), CoreConfig.defaults());
    sink = new HBaseHistorySink(ns.connection(), config, new JobMetrics(registry, Time.SYSTEM), Time.SYSTEM);
    sink.prepare();
  }

  @Test
  void preparedTableHasOneVersionRowBloomAndTheLongestRetentionAsTtl() throws IOException {
    sink.prepare(); // a second prepare (another job process) is harmless
    try (Admin admin = ns.connection().getAdmin()) {
      ColumnFamilyDescriptor family = admin.getDescriptor(config.table()).getColumnFamily(bytes("h"));
      assertThat(family.getTimeToLive()).isEqualTo((int) Duration.ofDays(120).toSeconds());
      assertThat(family.getMaxVersions()).isEqualTo(1);
      assertThat(family.getBloomFilterType()).isEqualTo(BloomType.ROW);
      assertThat(admin.getRegions(config.table())).hasSize(4);
    }
    assertThat(config.retention(Business.LIVE)).isEqualTo(Duration.ofDays(7));
    assertThat(config.retention(Business.ARTICLE)).isEqualTo(Duration.ofDays(30));
  }

  @Test
  void upsertIsACellStampedWithViewTimeHoldingTheRecord() {
    HistoryRecord r = record(UID, Business.VIDEO, 12345, 9_000, base + 5);
    sink.write(List.of(upserts(r)));

    Cell cell = cell(Business.VIDEO, 12345);
    assertThat(cell).isNotNull();
    assertThat(cell.getTimestamp()).isEqualTo(base + 5);
    assertThat(CellUtil.cloneQualifier(cell)).isEqualTo(bytes("12345_1"));
    assertThat(stored(Business.VIDEO, 12345)).isEqualTo(r);
    assertThat(registry.get("playline.job.hbase.mutations").tag("op", "put").counter().count()).isEqualTo(1);
  }

  @Test
  void olderRecordWrittenLaterDoesNotReplaceNewerOne() {
    HistoryRecord newer = record(UID, Business.VIDEO, 1, 9_000, base + 2_000);
    sink.write(List.of(upserts(newer)));
    sink.write(List.of(upserts(record(UID, Business.VIDEO, 1, 1_000, base + 1_000))));

    assertThat(stored(Business.VIDEO, 1)).isEqualTo(newer);
  }

  @Test
  void deleteRemovesTheItemAndAnOlderRecordWrittenAfterItStaysHidden() {
    sink.write(List.of(upserts(record(UID, Business.VIDEO, 1, 5, base + 1_000), record(UID, Business.VIDEO, 2, 5, base))));
    sink.write(List.of(HistoryChange.newBuilder().setUid(UID)
        .addDeletes(ItemDelete.newBuilder().setItem(item(Business.VIDEO, 1)).setDeleteTimeMs(base + 2_000)).build()));
    assertThat(stored(Business.VIDEO, 1)).isNull();
    assertThat(stored(Business.VIDEO, 2)).isNotNull();

    sink.write(List.of(upserts(record(UID, Business.VIDEO, 1, 7, base + 1_500))));
    assertThat(stored(Business.VIDEO, 1)).isNull();

    HistoryRecord after = record(UID, Business.VIDEO, 1, 8, base + 2_001);
    sink.write(List.of(upserts(after)));
    assertThat(stored(Business.VIDEO, 1)).isEqualTo(after);
  }

  @Test
  void clearOfEverythingRemovesAllItemsUpToItsTime() {
    sink.write(List.of(upserts(record(UID, Business.VIDEO, 1, 5, base), record(UID, Business.COMIC, 2, 5, base),
        record(UID, Business.LIVE, 3, 5, base + 3_000))));
    sink.write(List.of(HistoryChange.newBuilder().setUid(UID)
        .addClears(HistoryClear.newBuilder().setClearTimeMs(base + 2_000)).build()));

    assertThat(stored(Business.VIDEO, 1)).isNull();
    assertThat(stored(Business.COMIC, 2)).isNull();
    assertThat(stored(Business.LIVE, 3)).isNotNull();
    sink.write(List.of(upserts(record(UID, Business.VIDEO, 1, 5, base + 1_000))));
    assertThat(stored(Business.VIDEO, 1)).isNull();
  }

  @Test
  void clearOfSomeBusinessesPagesThroughAHeavyRowAndSparesTheOthers() {
    List<HistoryRecord> records = new ArrayList<>();
    for (int oid = 1; oid <= 9; oid++) {
      records.add(record(UID, Business.VIDEO, oid, oid, base + oid));
      records.add(record(UID, Business.ARTICLE, oid, oid, base + oid));
      records.add(record(UID, Business.AUDIO, oid, oid, base + oid));
    }
    records.add(record(UID, Business.VIDEO, 100, 1, base + 5_000));
    sink.write(List.of(upserts(records.toArray(HistoryRecord[]::new))));
    long callsBefore = (long) registry.get("playline.job.hbase.calls").counter().count();

    sink.write(List.of(HistoryChange.newBuilder().setUid(UID).addClears(HistoryClear.newBuilder()
        .addBusinesses(Business.VIDEO).addBusinesses(Business.AUDIO).setClearTimeMs(base + 1_000)).build()));

    for (int oid = 1; oid <= 9; oid++) {
      assertThat(stored(Business.VIDEO, oid)).as("video %s", oid).isNull();
      assertThat(stored(Business.AUDIO, oid)).as("audio %s", oid).isNull();
      assertThat(stored(Business.ARTICLE, oid)).as("article %s", oid).isNotNull();
    }
    assertThat(stored(Business.VIDEO, 100)).as("newer than the clear").isNotNull();
    // 18 cells to delete, 2 per page: one delete call per page, plus one for the chunks' tombstones.
    assertThat((long) registry.get("playline.job.hbase.calls").counter().count() - callsBefore).isEqualTo(9 + 1);
    sink.write(List.of(upserts(record(UID, Business.VIDEO, 1, 1, base + 999))));
    assertThat(stored(Business.VIDEO, 1)).as("older than the clear, written after it").isNull();
  }

  @Test
  void entryHBaseCannotStampIsSkippedWithoutFailingTheRest() {
    HistoryRecord valid = record(UID, Business.VIDEO, 2, 1, base);
    sink.write(List.of(HistoryChange.newBuilder().setUid(UID)
        .addUpserts(record(UID, Business.VIDEO, 1, 1, -1)).addUpserts(valid)
        .addDeletes(ItemDelete.newBuilder().setItem(item(Business.VIDEO, 2)).setDeleteTimeMs(-7)).build()));

    assertThat(stored(Business.VIDEO, 2)).isEqualTo(valid);
    assertThat(stored(Business.VIDEO, 1)).isNull();
    assertThat(registry.get("playline.job.invalid.entries").counter().count()).isEqualTo(2);
  }

  @Test
  void missingTableIsAPermanentFailureNotARetriableOne() throws IOException {
    try (Admin admin = ns.connection().getAdmin()) {
      admin.disableTable(config.table());
      admin.deleteTable(config.table());
    }
    assertThatThrownBy(() -> sink.write(List.of(upserts(record(UID, Business.VIDEO, 1, 1, base)))))
        .isInstanceOf(UncheckedIOException.class);
  }

  private static HistoryChange upserts(HistoryRecord... records) {
    return HistoryChange.newBuilder().setUid(records[0].getUid()).addAllUpserts(List.of(records)).build();
  }

  private static ItemKey item(Business business, long oid) {
    return ItemKey.newBuilder().setBusiness(business).setOid(oid).build();
  }

  private Cell cell(Business business, long oid) {
    byte[] family = bytes(config.family());
    byte[] qualifier = HistoryRowKeys.qualifier(business, oid);
    try (Table table = ns.connection().getTable(config.table())) {
      Result result = table.get(new Get(HistoryRowKeys.row(UID)).addColumn(family, qualifier));
      return result.getColumnLatestCell(family, qualifier);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private HistoryRecord stored(Business business, long oid) {
    Cell cell = cell(business, oid);
    try {
      return cell == null ? null : HistoryRecord.parseFrom(CellUtil.cloneValue(cell));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
