package io.playline.core.aggregate;

import static io.playline.core.aggregate.TestRecords.video;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.playline.core.write.RecoveryEntry;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryRecord;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class WriteBackRecordsTest {
  private static final ByteString MARK = ByteString.copyFromUtf8("1:~1");
  private static final RecoveryEntry ENTRY = new RecoveryEntry(0, "1-0");


  @Test
  void oneRecordPerPartitionWhenEverythingFits() {
    PendingChanges p = new PendingChanges();
    for (long uid = 1; uid <= 500; uid++) {
      p.upsert(video(uid, 1, 1, 100), ENTRY);
    }

    List<PartitionRecord> records = WriteBackRecords.assemble(p.users(), 4, 99, "node-a", 512 * 1024);

    assertThat(records).hasSize(4);
    assertThat(records).extracting(PartitionRecord::partition).containsExactly(0, 1, 2, 3);
    for (PartitionRecord r : records) {
      assertThat(r.batch().getFlushedAtMs()).isEqualTo(99);
      assertThat(r.batch().getNodeId()).isEqualTo("node-a");
      assertThat(r.batch().getChangesList()).allSatisfy(c -> assertThat(UserPartitions.of(c.getUid(), 4))
          .isEqualTo(r.partition()));
    }
    assertThat(records.stream().mapToInt(r -> r.batch().getChangesCount()).sum()).isEqualTo(500);
  }

  @Test
  void splitsAtMaxRecordBytesWithAtMostOneEntryPerUserPerRecord() {
    PendingChanges p = new PendingChanges();
    for (long uid = 1; uid <= 200; uid++) {
      p.upsert(video(uid, 1, 1, 100), ENTRY);
    }
    // One user whose changes alone are far larger than a record.
    IntStream.rangeClosed(1, 300).forEach(oid -> p.upsert(video(1_000, oid, oid, 100 + oid), ENTRY));
    p.delete(1_000, List.of(new ItemId(Business.VIDEO_VALUE, 5_000)), 50, MARK);

    List<PartitionRecord> records = WriteBackRecords.assemble(p.users(), 4, 99, "node-a", 1024);

    assertThat(records.size()).isGreaterThan(4 + 1);
    Set<String> upserts = new HashSet<>();
    int deletes = 0;
    for (PartitionRecord r : records) {
      assertThat(r.batch().getSerializedSize()).isLessThanOrEqualTo(1024);
      assertThat(r.batch().getChangesList()).extracting(HistoryChange::getUid).doesNotHaveDuplicates();
      for (HistoryChange c : r.batch().getChangesList()) {
        for (HistoryRecord u : c.getUpsertsList()) {
          assertThat(upserts.add(u.getUid() + ":" + u.getOid())).as("sent once: %s", u).isTrue();
        }
        deletes += c.getDeletesCount();
      }
    }
    assertThat(upserts).hasSize(200 + 300);
    assertThat(deletes).isEqualTo(1);
  }

  @Test
  void usersSpreadOverPartitionsAndAlwaysMapToTheSameOne() {
    int[] perPartition = new int[8];
    for (long uid = 1; uid <= 8_000; uid++) {
      int p = UserPartitions.of(uid, 8);
      assertThat(UserPartitions.of(uid, 8)).isEqualTo(p);
      perPartition[p]++;
    }
    assertThat(Arrays.stream(perPartition).boxed().toList()).allSatisfy(n -> assertThat(n).isBetween(800, 1_200));
    assertThat(UserPartitions.of(-5, 4)).isBetween(0, 3);
  }
}
