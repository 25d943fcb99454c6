package io.playline.core.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.time.Time;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The recovery log the writer keeps beside what it applies: one entry per write call listing the
 * items it applied, which the write-back deletes once Kafka acknowledged them.
 */
class RecoveryLogTest extends AbstractRedisHistoryWriterTest {
  @Test
  void aCallLogsWhatItAppliedInOneEntryThatItsRecordsCarry() throws Exception {
    write(List.of(new UserWrite(8, List.of(record(8, 10, 5, now), record(8, 11, 5, now)))), List.of());
    assertThat(sunk).extracting(a -> a.record().getOid()).containsExactly(10L, 11L);
    RecoveryEntry entry = sunk.get(0).entry();
    assertThat(entry).isNotNull();
    assertThat(sunk.get(1).entry()).isEqualTo(entry);
    assertThat(logEntries(entry.shard())).containsExactly(Map.entry(entry.id(), List.of("8:1:10", "8:1:11")));
    // Ids are Redis's milliseconds (same machine: within a minute of ours).
    long ms = Long.parseLong(entry.id().substring(0, entry.id().indexOf('-')));
    assertThat(ms).isBetween(System.currentTimeMillis() - 60_000, System.currentTimeMillis() + 60_000);
  }

  @Test
  void aCallThatAppliedNothingLogsNothing() throws Exception {
    write(List.of(new UserWrite(8, List.of(record(8, 10, 5, now)))), List.of());
    sunk.clear();
    // Older than the stored record: lost; a paused user: nothing written.
    redis.shared().set(keys.paused(9), "1".getBytes()).get();
    write(List.of(new UserWrite(8, List.of(record(8, 10, 1, now - 100))), new UserWrite(9, List.of(record(9, 1, 1, now)))),
        List.of());
    assertThat(sunk).isEmpty();
    assertThat(allLogEntries().values().stream().mapToInt(Map::size).sum()).isEqualTo(1);
  }

  @Test
  void onlyTheAppliedEventsOfACallAreListed() throws Exception {
    write(List.of(new UserWrite(8, List.of(record(8, 10, 5, now)))), List.of());
    sunk.clear();
    write(List.of(new UserWrite(8, List.of(record(8, 10, 1, now - 100), record(8, 12, 1, now)))), List.of());
    assertThat(sunk).extracting(a -> a.record().getOid()).containsExactly(12L);
    RecoveryEntry entry = sunk.get(0).entry();
    assertThat(logEntries(entry.shard())).containsEntry(entry.id(), List.of("8:1:12"));
  }

  @Test
  void callsTakeTheLogShardsInTurn() throws Exception {
    // users.per.script is 2: five users are three calls, each appending to the next shard.
    List<UserWrite> five = new java.util.ArrayList<>();
    for (long uid = 1; uid <= 5; uid++) {
      five.add(new UserWrite(uid, List.of(record(uid, 1, 1, now))));
    }
    write(five, List.of());
    write(List.of(new UserWrite(6, List.of(record(6, 1, 1, now)))), List.of());
    assertThat(sunk).extracting(a -> a.entry().shard()).containsExactly(0, 0, 1, 1, 2, 3);
    Map<Integer, Map<String, List<String>>> all = allLogEntries();
    assertThat(all.keySet()).containsExactly(0, 1, 2, 3);
    assertThat(all.get(0).values()).containsExactly(List.of("1:1:1", "2:1:1"));
    assertThat(all.get(2).values()).containsExactly(List.of("5:1:1"));
  }

  @Test
  void acknowledgedEntriesAreDeletedAndOthersStay() throws Exception {
    write(List.of(new UserWrite(8, List.of(record(8, 10, 5, now)))), List.of());
    write(List.of(new UserWrite(9, List.of(record(9, 10, 5, now)))), List.of());
    write(List.of(new UserWrite(10, List.of(record(10, 10, 5, now)))), List.of());
    RecoveryLog log = new RecoveryLog(redis.shared(), keys, registry, Time.SYSTEM);

    log.acked(List.of(sunk.get(0).entry(), sunk.get(2).entry()));

    await().atMost(Duration.ofSeconds(10)).until(() -> log.deleted() == 2);
    Map<Integer, Map<String, List<String>>> left = allLogEntries();
    assertThat(left.values().stream().flatMap(m -> m.values().stream())).containsExactly(List.of("9:1:10"));
  }
}
