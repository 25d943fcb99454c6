package io.playline.core.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.core.store.RedisKeys;
import io.playline.core.store.RedisScript;
import io.playline.proto.v1.Business;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * How the writer calls Redis: batches split into {@code write_history} calls in order (by hash
 * slot in cluster mode), one call per server batch that writes and logs, a flushed script cache.
 */
class WriteScriptCallsTest extends AbstractRedisHistoryWriterTest {
  @Test
  void lostScriptCacheFallsBackToEval() throws Exception {
    redis.shared().scriptFlush().get();
    BatchOutcome outcome = write(List.of(new UserWrite(9, List.of(record(9, 10, 5, now)))), List.of(9L));
    assertThat(outcome.writes().get(0).firstView(0)).isTrue();
    assertThat(outcome.firstToday()).containsExactly(true);
  }

  /**
   * Runs {@code body} with every Redis command in SLOWLOG; returns the arguments of the commands naming
   * a key of this test, oldest first (Redis 7 also lists the commands a script ran, before the script).
   */
  private List<List<?>> ownCommandsOf(ThrowingRunnable body) throws Exception {
    String slower = redis.shared().configGet("slowlog-log-slower-than").get().get("slowlog-log-slower-than");
    String length = redis.shared().configGet("slowlog-max-len").get().get("slowlog-max-len");
    redis.shared().configSet("slowlog-max-len", "10000").get();
    redis.shared().configSet("slowlog-log-slower-than", "0").get();
    List<Object> log;
    try {
      redis.shared().slowlogReset().get();
      body.run();
      log = redis.shared().slowlogGet(10000).get();
    } finally {
      redis.shared().configSet("slowlog-log-slower-than", slower).get();
      redis.shared().configSet("slowlog-max-len", length).get();
    }
    // SLOWLOG (every command, as slower than 0 µs) lists the newest first: [id, time, µs, [args], ...].
    List<List<?>> own = new ArrayList<>();
    for (Object o : log) {
      List<?> args = (List<?>) ((List<?>) o).get(3);
      if (args.stream().anyMatch(a -> new String((byte[]) a, StandardCharsets.ISO_8859_1)
          .startsWith(config.redisKeyPrefix()))) {
        own.add(0, args);
      }
    }
    return own;
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  private static List<String> texts(List<?> args) {
    return args.stream().map(a -> new String((byte[]) a, StandardCharsets.ISO_8859_1)).toList();
  }

  private static List<List<String>> scriptCalls(List<List<?>> commands) {
    return commands.stream().map(WriteScriptCallsTest::texts)
        .filter(c -> c.get(0).equalsIgnoreCase("EVAL") || c.get(0).equalsIgnoreCase("EVALSHA")).toList();
  }

  private static int indexOf(List<List<?>> commands, String command, String key) {
    for (int i = 0; i < commands.size(); i++) {
      List<String> c = texts(commands.get(i));
      if (c.get(0).equalsIgnoreCase(command) && c.get(1).equals(key)) {
        return i;
      }
    }
    return -1;
  }

  private static String key(byte[] key) {
    return new String(key, StandardCharsets.ISO_8859_1);
  }

  @Test
  void aBatchOnOneServerIsOneScriptCallThatWritesAndLogs() throws Exception {
    long other = 41;
    double commandsBefore = registry.get("playline.redis.commands").counter().count();

    List<List<?>> calls = ownCommandsOf(() -> write(List.of(new UserWrite(40, List.of(record(40, 10, 5, now))),
        new UserWrite(other, List.of(record(other, 10, 6, now), record(other, 11, 7, now)))), List.of()));

    assertThat(scriptCalls(calls)).as("script calls naming this test's keys").hasSize(1);
    List<String> call = scriptCalls(calls).get(0);
    assertThat(call.get(0)).isEqualToIgnoringCase("EVALSHA");
    assertThat(call.get(1)).isEqualTo(RedisScript.WRITE_HISTORY.sha());
    assertThat(call).contains(key(keys.timeline(40)), key(keys.timeline(other)), key(keys.recoveryLog(0)));
    assertThat(registry.get("playline.redis.commands").counter().count() - commandsBefore).isEqualTo(1);
    assertThat(sunk).hasSize(3);
    assertThat(sunk).extracting(AppliedRecord::entry).containsOnly(sunk.get(0).entry());
    assertThat(logEntries(0)).containsExactly(Map.entry(sunk.get(0).entry().id(), List.of("40:1:10", "41:1:10", "41:1:11")));
  }

  @Test
  void aWriteSentAgainAfterNoscriptIsLoggedInItsOwnCallAfterItRan() throws Exception {
    // A flushed script cache (a restarted Redis): write_history meets NOSCRIPT and runs again with
    // its body, which logs in the same call.
    redis.shared().scriptFlush().get();

    List<List<?>> calls = ownCommandsOf(() -> write(List.of(new UserWrite(31, List.of(record(31, 10, 5, now)))), List.of()));

    assertThat(scriptCalls(calls)).extracting(c -> c.get(0).toUpperCase(java.util.Locale.ROOT))
        .as("the refused EVALSHA, then the write with its body").containsExactly("EVALSHA", "EVAL");
    assertThat(scriptCalls(calls).get(1)).contains(key(keys.timeline(31)), key(keys.recoveryLog(0)));
    int written = indexOf(calls, "HSET", key(keys.records(31)));
    assertThat(written).as("the write").isNotNegative();
    assertThat(indexOf(calls, "XADD", key(keys.recoveryLog(0)))).as("the log entry").isGreaterThan(written);
    assertThat(stored(31, 10).getProgressMs()).isEqualTo(5);
    assertThat(sunk).hasSize(1);
    assertThat(logEntries(0)).containsOnlyKeys(sunk.get(0).entry().id());
  }

  @Test
  void usersSharingScriptCallsEachGetTheirOwnAnswer() throws Exception {
    redis.shared().set(keys.paused(21), "1".getBytes()).get();
    redis.shared().hset(keys.tombstones(22), RedisKeys.member(Business.VIDEO, 10), Long.toString(now).getBytes()).get();
    write(List.of(new UserWrite(23, List.of(record(23, 10, 500, now)))), List.of());
    double commandsBefore = registry.get("playline.redis.commands").counter().count();

    BatchOutcome outcome = write(List.of(
        new UserWrite(20, List.of(record(20, 10, 1, now))),
        new UserWrite(21, List.of(record(21, 10, 2, now), record(21, 11, 3, now))),
        new UserWrite(22, List.of(record(22, 10, 4, now - 1), record(22, 11, 5, now))),
        new UserWrite(23, List.of(record(23, 10, 6, now - 1), record(23, 10, 7, now + 1), record(23, 12, 8, now))),
        new UserWrite(24, List.of(record(24, 10, 9, now)))), List.of());

    // 5 users, 2 per call: 3 write_history calls, each logging what it applied (one server).
    assertThat(registry.get("playline.redis.commands").counter().count() - commandsBefore).isEqualTo(3);
    List<WriteOutcome> w = outcome.writes();
    assertThat(w).hasSize(5);
    assertThat(w.get(0).paused()).isFalse();
    assertThat(w.get(0).codes()).containsExactly(WriteOutcome.CREATED);
    assertThat(w.get(1).paused()).isTrue();
    assertThat(w.get(1).codes()).containsExactly(WriteOutcome.LOST, WriteOutcome.LOST);
    assertThat(w.get(2).codes()).containsExactly(WriteOutcome.LOST, WriteOutcome.CREATED);
    assertThat(w.get(3).codes()).containsExactly(WriteOutcome.LOST, WriteOutcome.UPDATED, WriteOutcome.CREATED);
    assertThat(w.get(4).codes()).containsExactly(WriteOutcome.CREATED);
    assertThat(stored(20, 10).getProgressMs()).isEqualTo(1);
    assertThat(stored(21, 10)).isNull();
    assertThat(stored(22, 10)).isNull();
    assertThat(stored(22, 11).getProgressMs()).isEqualTo(5);
    assertThat(stored(23, 10).getProgressMs()).isEqualTo(7);
    assertThat(stored(23, 12).getProgressMs()).isEqualTo(8);
    assertThat(stored(24, 10).getProgressMs()).isEqualTo(9);
    assertThat(sunk).extracting(a -> a.record().getUid(), a -> a.record().getProgressMs()).contains(
        org.assertj.core.groups.Tuple.tuple(20L, 1L), org.assertj.core.groups.Tuple.tuple(22L, 5L),
        org.assertj.core.groups.Tuple.tuple(23L, 7L), org.assertj.core.groups.Tuple.tuple(24L, 9L))
        .doesNotContain(org.assertj.core.groups.Tuple.tuple(21L, 2L), org.assertj.core.groups.Tuple.tuple(22L, 4L),
            org.assertj.core.groups.Tuple.tuple(23L, 6L));
  }

  @Test
  void aMalformedScriptCallIsRefusedAndWritesNothing() throws Exception {
    byte[][] userKeys = {keys.timeline(30), keys.records(30), keys.tombstones(30), keys.paused(30),
        keys.timeline(31), keys.records(31), keys.tombstones(31), keys.paused(31)};
    byte[] member = RedisKeys.member(Business.VIDEO, 10);
    byte[] rec = record(30, 10, 1, now).toByteArray();
    // The second user claims two events but carries one.
    var call = redis.shared().evalsha(io.playline.core.store.RedisScript.WRITE_HISTORY.sha(),
        io.lettuce.core.ScriptOutputType.MULTI, userKeys, "1000".getBytes(), "60000".getBytes(), "0".getBytes(),
        "1".getBytes(), "30".getBytes(), member, Long.toString(now).getBytes(), rec,
        "2".getBytes(), "31".getBytes(), member, Long.toString(now).getBytes(), rec).toCompletableFuture();
    org.assertj.core.api.Assertions.assertThatThrownBy(call::join).hasMessageContaining("do not match");
    assertThat(stored(30, 10)).isNull();
    assertThat(redis.shared().exists(keys.timeline(30)).get()).isZero();
  }

  @Test
  void aBatchIsSplitIntoCallsInOrderAndInClusterModeByHashSlot() {
    List<UserWrite> five = new ArrayList<>();
    for (long uid = 1; uid <= 5; uid++) {
      five.add(new UserWrite(uid, List.of(record(uid, 1, 1, now))));
    }
    assertThat(RedisHistoryWriter.plan(five, 2, null))
        .containsExactly(new int[] {0, 1}, new int[] {2, 3}, new int[] {4});
    assertThat(RedisHistoryWriter.plan(five, 64, null)).containsExactly(new int[] {0, 1, 2, 3, 4});
    // Slots by uid parity: users 1, 3, 5 share one, 2 and 4 the other.
    assertThat(RedisHistoryWriter.plan(five, 2, uid -> (int) (uid % 2)))
        .containsExactly(new int[] {0, 2}, new int[] {4}, new int[] {1, 3});
    assertThat(RedisHistoryWriter.plan(List.of(), 2, null)).isEmpty();
    // The real slots of Playline keys: every call's keys share one hash slot.
    RedisKeys k = new RedisKeys("pl:");
    List<UserWrite> many = new ArrayList<>();
    for (long uid = 1; uid <= 200; uid++) {
      many.add(new UserWrite(uid, List.of(record(uid, 1, 1, now))));
    }
    for (int[] call : RedisHistoryWriter.plan(many, 8,
        uid -> io.lettuce.core.cluster.SlotHash.getSlot(k.timeline(uid)))) {
      int slot = io.lettuce.core.cluster.SlotHash.getSlot(k.timeline(many.get(call[0]).uid()));
      for (int w : call) {
        long uid = many.get(w).uid();
        for (byte[] key : List.of(k.timeline(uid), k.records(uid), k.tombstones(uid), k.paused(uid))) {
          assertThat(io.lettuce.core.cluster.SlotHash.getSlot(key)).isEqualTo(slot);
        }
      }
    }
  }
}
