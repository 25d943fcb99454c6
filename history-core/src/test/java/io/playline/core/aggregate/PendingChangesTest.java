package io.playline.core.aggregate;

import static io.playline.core.aggregate.TestRecords.record;
import static io.playline.core.aggregate.TestRecords.video;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.playline.core.write.RecoveryEntry;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

class PendingChangesTest {
  private static final ByteString MARK = ByteString.copyFromUtf8("1:~1");
  private static final RecoveryEntry ENTRY = new RecoveryEntry(0, "1-0");


  private static HistoryChange only(PendingChanges p, long uid) {
    UserChanges u = p.users().stream().filter(c -> c.uid() == uid).findFirst().orElseThrow();
    return u.pieces(Integer.MAX_VALUE).get(0);
  }

  @Test
  void latestViewTimeWinsWhateverTheArrivalOrder() {
    PendingChanges p = new PendingChanges();
    p.upsert(video(1, 10, 1_000, 200), ENTRY);
    p.upsert(video(1, 10, 3_000, 300), ENTRY);
    p.upsert(video(1, 10, 2_000, 250), ENTRY);
    p.upsert(record(1, Business.ARTICLE, 10, 5, 100), ENTRY);

    assertThat(p.upserts()).isEqualTo(2);
    assertThat(only(p, 1).getUpsertsList()).extracting(HistoryRecord::getBusiness, HistoryRecord::getProgressMs)
        .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(Business.VIDEO, 3_000L),
            org.assertj.core.groups.Tuple.tuple(Business.ARTICLE, 5L));
  }

  @Test
  void aDeleteDiscardsUpsertsNotAfterItAndStopsOlderOnes() {
    PendingChanges p = new PendingChanges();
    p.upsert(video(1, 10, 1_000, 200), ENTRY);
    p.delete(1, List.of(new ItemId(Business.VIDEO_VALUE, 10)), 250, MARK);
    p.upsert(video(1, 10, 1_500, 240), ENTRY);

    assertThat(p.upserts()).isZero();
    assertThat(p.tombstones()).isEqualTo(1);
    p.upsert(video(1, 10, 2_000, 260), ENTRY);
    assertThat(only(p, 1).getUpsertsList()).extracting(HistoryRecord::getViewTimeMs).containsExactly(260L);
    assertThat(only(p, 1).getDeletesList()).singleElement()
        .satisfies(d -> assertThat(d.getDeleteTimeMs()).isEqualTo(250));
  }

  @Test
  void aClearCoversOnlyItsBusinessesAndEmptyMeansAll() {
    PendingChanges p = new PendingChanges();
    p.upsert(video(1, 10, 1, 100), ENTRY);
    p.upsert(record(1, Business.COMIC, 11, 1, 100), ENTRY);
    p.clear(1, UserChanges.mask(List.of(Business.VIDEO)), 150, MARK);
    assertThat(only(p, 1).getUpsertsList()).extracting(HistoryRecord::getBusiness).containsExactly(Business.COMIC);

    p.upsert(video(2, 10, 1, 100), ENTRY);
    p.clear(2, UserChanges.mask(List.of()), 150, MARK);
    p.clear(2, UserChanges.mask(List.of()), 120, MARK);
    assertThat(only(p, 2).getUpsertsList()).isEmpty();
    assertThat(only(p, 2).getClearsList()).singleElement()
        .satisfies(c -> assertThat(c.getClearTimeMs()).isEqualTo(150))
        .satisfies(c -> assertThat(c.getBusinessesList()).isEmpty());
    assertThat(p.size()).isEqualTo(1 + 1 + 1);
  }

  /**
   * The recovery-log entries of what is pending: kept through merges (a newer write that replaces
   * an item keeps the older write's entry too), and all forgotten once any upsert is dropped, so
   * that the dropped write's entry stays in Redis for the job's sweep.
   */
  @Test
  void keepsTheLogEntriesOfWhatItHoldsAndForgetsThemAllOnADrop() {
    RecoveryEntry a = new RecoveryEntry(0, "1-0");
    RecoveryEntry b = new RecoveryEntry(1, "2-0");
    RecoveryEntry c = new RecoveryEntry(0, "3-0");
    PendingChanges older = new PendingChanges();
    older.upsert(video(1, 10, 1, 100), a);
    older.upsert(video(2, 10, 1, 100), b);
    PendingChanges newer = new PendingChanges();
    newer.upsert(video(1, 10, 2, 200), c);
    newer.upsert(video(3, 10, 2, 200), null);
    older.mergeNewer(newer);
    assertThat(older.entries()).containsExactly(a, b, c);

    assertThat(older.dropOldestUpserts(3)).isZero();
    assertThat(older.entries()).containsExactly(a, b, c);
    assertThat(older.dropOldestUpserts(2)).isEqualTo(1);
    assertThat(older.entries()).isEmpty();
  }

  @Test
  void rejectsUnspecifiedBusinessesInAClear() {
    assertThatThrownBy(() -> UserChanges.mask(List.of(Business.BUSINESS_UNSPECIFIED)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void mergingNewerChangesKeepsTheLatestPerItem() {
    PendingChanges older = new PendingChanges();
    older.upsert(video(1, 10, 1, 300), ENTRY);
    older.upsert(video(1, 11, 1, 100), ENTRY);
    PendingChanges newer = new PendingChanges();
    newer.upsert(video(1, 10, 2, 200), ENTRY);
    newer.upsert(video(1, 11, 2, 400), ENTRY);
    newer.delete(2, List.of(new ItemId(Business.VIDEO_VALUE, 5)), 50, MARK);

    older.mergeNewer(newer);

    assertThat(older.upserts()).isEqualTo(2);
    assertThat(older.tombstones()).isEqualTo(1);
    assertThat(only(older, 1).getUpsertsList()).extracting(HistoryRecord::getViewTimeMs)
        .containsExactlyInAnyOrder(300L, 400L);
  }

  @Test
  void dropsTheUpsertsOfTheLeastRecentlyWrittenUsersButKeepsTombstones() {
    PendingChanges p = new PendingChanges();
    p.upsert(video(1, 10, 1, 100), ENTRY);
    p.delete(1, List.of(new ItemId(Business.VIDEO_VALUE, 99)), 100, MARK);
    p.upsert(video(2, 10, 1, 100), ENTRY);
    p.upsert(video(3, 10, 1, 100), ENTRY);
    p.upsert(video(4, 10, 1, 100), ENTRY);
    p.upsert(video(2, 11, 1, 100), ENTRY); // user 2 is now the most recently written

    int dropped = p.dropOldestUpserts(3);

    assertThat(dropped).isEqualTo(2);
    assertThat(p.users()).extracting(UserChanges::uid).containsExactly(1L, 4L, 2L);
    assertThat(p.upserts()).isEqualTo(3);
    assertThat(only(p, 1).getUpsertsList()).isEmpty();
    assertThat(only(p, 1).getDeletesList()).hasSize(1);
    assertThat(p.tombstones()).isEqualTo(1);
  }
}
