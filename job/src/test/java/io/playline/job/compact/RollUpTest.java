package io.playline.job.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.playline.core.compact.HistoryCompactor;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemDelete;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.RedisNamespace;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * When {@link HistoryCompactor} rolls a user up and what a roll-up leaves: one stopped after any
 * step, two racing, a later one rewriting only the chunks that changed, users below the threshold
 * or past the record limit.
 */
class RollUpTest extends AbstractCompactionTest {
  @Test
  void aRollUpStoppedAfterAnyStepLeavesTheSameHistoryReadable(RedisNamespace redis, HBaseNamespace hbase)
      throws Exception {
    setUp(redis, hbase, Map.of("history.compact.threshold", "100", "history.compact.keep", "20",
        "history.compact.chunk.bytes", "2048", "history.redis.max.items", "10", "query.hbase.max.items", "30"));
    String[] steps = {"afterChunks", "afterIndex", "afterLiveDeletes"};
    for (int s = 0; s < steps.length; s++) {
      long uid = 7100 + s;
      List<HistoryRecord> records = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        records.add(record(uid, Business.VIDEO, 1 + i, now - (i + 1) * 60_000L));
      }
      upsert(uid, records);
      // A first version, so the stopped roll-up replaces one.
      assertThat(compactor.compact(uid, false).outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
      List<HistoryRecord> more = new ArrayList<>();
      for (int i = 0; i < 150; i++) {
        more.add(record(uid, Business.VIDEO, 10_000 + i, now - i * 1000L));
      }
      upsert(uid, more);
      List<HistoryRecord> expected = listAll(uid);
      assertThat(expected).hasSize(450);

      String step = steps[s];
      compactor.hooks(new StopAt(step));
      assertThatThrownBy(() -> compactor.compact(uid, false)).as(step).hasMessageContaining("stopped " + step);
      compactor.hooks(HistoryCompactor.Hooks.NONE);
      assertThat(listAll(uid)).as("after a stop %s", step).isEqualTo(expected);

      HistoryCompactor.Result resumed = compactor.compact(uid, true);
      // Stopped after the live deletes, only clean-up was left: nothing to roll up again.
      assertThat(resumed.outcome()).as(step).isEqualTo(step.equals("afterLiveDeletes")
          ? HistoryCompactor.Outcome.NOT_NEEDED : HistoryCompactor.Outcome.ROLLED_UP);
      assertThat(listAll(uid)).as("after the next roll-up (%s)", step).isEqualTo(expected);
      assertThat(liveCells(uid)).isEqualTo(20);
    }
  }

  @Test
  void ofTwoRacingRollUpsOneWritesItsVersionAndTheOtherRemovesItsChunks(RedisNamespace redis, HBaseNamespace hbase)
      throws Exception {
    setUp(redis, hbase, Map.of("history.compact.threshold", "50", "history.compact.keep", "10",
        "history.compact.chunk.bytes", "1024"));
    long uid = 7200;
    List<HistoryRecord> records = history(uid, 120, i -> Business.COMIC, 60_000L);
    List<HistoryRecord> expected = listAll(uid);
    HistoryCompactor.Result[] inner = new HistoryCompactor.Result[1];
    compactor.hooks(new HistoryCompactor.Hooks() {
      @Override
      public void afterChunks(long u) {
        compactor.hooks(HistoryCompactor.Hooks.NONE);
        try {
          inner[0] = compactor.compact(u, false);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    });
    HistoryCompactor.Result outer = compactor.compact(uid, false);
    assertThat(inner[0].outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
    assertThat(outer.outcome()).isEqualTo(HistoryCompactor.Outcome.CONFLICT);
    assertThat(index(uid).index().getVersion()).isEqualTo(1);
    assertThat(chunkRows(uid)).as("only the winner's chunk rows remain").isEqualTo(inner[0].chunks());
    assertThat(listAll(uid)).isEqualTo(expected);
  }

  @Test
  void aLaterRollUpKeepsTheChunksThatDidNotChangeAndRewritesOnlyTheOthers(RedisNamespace redis, HBaseNamespace hbase)
      throws Exception {
    setUp(redis, hbase, Map.of("history.compact.threshold", "100", "history.compact.keep", "20",
        "history.compact.chunk.bytes", "2048", "history.redis.max.items", "10", "query.hbase.max.items", "30"));
    long uid = 7400;
    List<HistoryRecord> records = history(uid, 400, i -> Business.VIDEO, 3_600_000L);
    HistoryCompactor.Result first = compactor.compact(uid, false);
    assertThat(first.chunksWritten()).isEqualTo(first.chunks()).isGreaterThan(5);

    // 150 newer records: the next version adds chunks for the ones moved and keeps every old chunk.
    List<HistoryRecord> newer = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      newer.add(record(uid, Business.VIDEO, 10_000 + i, now + 1000 + i));
    }
    upsert(uid, newer);
    HistoryCompactor.Result second = compactor.compact(uid, false);
    assertThat(second.outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
    assertThat(second.chunks() - second.chunksWritten()).as("chunks kept as they were").isEqualTo(first.chunks());
    assertThat(index(uid).index().getRetiredCount()).isZero();

    // A late write into the middle of an old chunk, and a delete in another: those two are rewritten.
    HistoryRecord middle = records.get(200);
    upsert(uid, List.of(middle.toBuilder().setViewTimeMs(middle.getViewTimeMs() + 1).setProgressMs(7).build()));
    sink.write(List.of(HistoryChange.newBuilder().setUid(uid).addDeletes(ItemDelete.newBuilder()
        .setItem(key(records.get(350))).setDeleteTimeMs(now)).build()));
    List<HistoryRecord> expected = listAll(uid);
    HistoryCompactor.Result third = compactor.compact(uid, true);
    assertThat(third.outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
    assertThat(third.chunksWritten()).isBetween(1, 4);
    assertThat(index(uid).index().getRetiredCount()).isBetween(1, 3);
    assertThat(listAll(uid)).isEqualTo(expected).hasSize(400 + 150 - 1);
    // The retired chunks are deleted by the roll-up after.
    int rowsBefore = chunkRows(uid);
    upsert(uid, List.of(record(uid, Business.VIDEO, 99_999, now + 10_000)));
    compactor.compact(uid, true);
    assertThat(chunkRows(uid)).isLessThan(rowsBefore + 1);
    assertThat(listAll(uid)).hasSize(expected.size() + 1);
  }

  @Test
  void deletesOfAUserBelowTheThresholdAreFoldedAndTheirTombstonesRemoved(RedisNamespace redis, HBaseNamespace hbase)
      throws Exception {
    setUp(redis, hbase, Map.of("history.compact.threshold", "100", "history.compact.keep", "50"));
    long uid = 7500;
    List<HistoryRecord> records = history(uid, 30, i -> Business.AUDIO, DAY);
    sink.write(List.of(HistoryChange.newBuilder().setUid(uid).addDeletes(ItemDelete.newBuilder()
        .setItem(key(records.get(3))).setDeleteTimeMs(now)).build()));
    assertThat(index(uid).tombstones()).hasSize(1);
    // Never rolled up and within the threshold: the check still folds the tombstone (an empty index).
    HistoryCompactor.Result r = compactor.compact(uid, false);
    assertThat(r.outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
    assertThat(r.chunks()).isZero();
    assertThat(index(uid).tombstones()).isEmpty();
    assertThat(members(listAll(uid))).hasSize(29).doesNotContain(member(records.get(3)));
    assertThat(compactor.compact(uid, false).outcome()).isEqualTo(HistoryCompactor.Outcome.NOT_NEEDED);
  }

  @Test
  void aUserBelowTheThresholdIsRolledUpOnceItsOldestLiveCellsPassTheAge(RedisNamespace redis, HBaseNamespace hbase)
      throws Exception {
    setUp(redis, hbase, Map.of("history.compact.threshold", "100", "history.compact.keep", "5",
        "history.compact.age", "10d"));
    long young = 7700;
    history(young, 9, i -> Business.VIDEO, DAY);
    assertThat(compactor.compact(young, false).outcome()).isEqualTo(HistoryCompactor.Outcome.NOT_NEEDED);
    long old = 7701;
    history(old, 30, i -> Business.VIDEO, DAY);
    HistoryCompactor.Result r = compactor.compact(old, false);
    assertThat(r.outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
    assertThat(r.moved()).isEqualTo(25);
    assertThat(listAll(old)).hasSize(30);
  }

  @Test
  void aUserPastTheRecordLimitIsLeftAsItIs(RedisNamespace redis, HBaseNamespace hbase) throws Exception {
    setUp(redis, hbase, Map.of("history.compact.threshold", "20", "history.compact.keep", "5",
        "history.compact.max.records", "50"));
    long uid = 7600;
    history(uid, 60, i -> Business.VIDEO, DAY);
    HistoryCompactor.Result r = compactor.compact(uid, false);
    assertThat(r.outcome()).isEqualTo(HistoryCompactor.Outcome.TOO_LARGE);
    assertThat(index(uid).index()).isNull();
    assertThat(liveCells(uid)).isEqualTo(60);
    assertThat(listAll(uid)).hasSize(60);
  }

  private static final class StopAt implements HistoryCompactor.Hooks {
    private final String step;

    StopAt(String step) {
      this.step = step;
    }

    private void maybeStop(String at) {
      if (at.equals(step)) {
        throw new IllegalStateException("stopped " + at);
      }
    }

    @Override
    public void afterChunks(long uid) {
      maybeStop("afterChunks");
    }

    @Override
    public void afterIndex(long uid) {
      maybeStop("afterIndex");
    }

    @Override
    public void afterLiveDeletes(long uid) {
      maybeStop("afterLiveDeletes");
    }
  }
}
