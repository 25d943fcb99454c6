package io.playline.core.query;

import static io.playline.core.query.QueryTestEnv.item;
import static io.playline.core.query.QueryTestEnv.join;
import static io.playline.core.query.QueryTestEnv.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.playline.core.write.BatchOutcome;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Delete, clear and pause: immediate for readers, sticky against late events, handed to the write-back. */
@ExtendWith({RealRedisExtension.class, RealHBaseExtension.class})
class HistoryControlTest {
  private static final long UID = 4004;
  private QueryTestEnv env;
  private long before;

  @BeforeEach
  void setUp(RedisNamespace redis, HBaseNamespace hbase) {
    env = new QueryTestEnv(redis, hbase, Map.of());
    before = env.now - 60_000;
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  private List<String> listed() {
    return env.listAll(UID, List.of(), 50).stream().map(r -> r.getBusiness() + ":" + r.getOid()).toList();
  }

  @Test
  void deletedItemStaysDeletedAgainstLateEventsAndComesBackOnlyWithANewerOne() {
    env.heartbeat(record(UID, Business.VIDEO, 1, 10, before), record(UID, Business.VIDEO, 2, 10, before + 1));
    env.persist(record(UID, Business.VIDEO, 1, 10, before));
    assertThat(listed()).containsExactly("VIDEO:2", "VIDEO:1");

    long deleteAt = System.currentTimeMillis();
    join(env.service.delete(UID, List.of(item(Business.VIDEO, 1), item(Business.VIDEO, 1))));

    assertThat(listed()).containsExactly("VIDEO:2");
    assertThat(join(env.service.progress(UID, List.of(item(Business.VIDEO, 1))))).isEmpty();
    assertThat(env.sink.ops()).singleElement().asString().startsWith("delete " + UID + " VIDEO:1 @");
    long tombstone = Long.parseLong(env.sink.ops().get(0).substring(env.sink.ops().get(0).indexOf('@') + 1));
    assertThat(tombstone).isGreaterThanOrEqualTo(deleteAt);

    BatchOutcome late = env.heartbeat(record(UID, Business.VIDEO, 1, 99, tombstone));
    assertThat(late.writes().get(0).applied(0)).isFalse();
    assertThat(listed()).containsExactly("VIDEO:2");

    env.heartbeat(record(UID, Business.VIDEO, 1, 5, tombstone + 1));
    assertThat(listed()).containsExactly("VIDEO:1", "VIDEO:2");
  }

  @Test
  void clearOfOneBusinessRemovesOnlyItAndRefusesItsLateEvents() {
    env.heartbeat(record(UID, Business.VIDEO, 1, 1, before), record(UID, Business.COMIC, 2, 1, before + 1),
        record(UID, Business.COMIC, 3, 1, before + 2));
    env.persist(record(UID, Business.COMIC, 4, 1, before - 10));
    assertThat(listed()).containsExactly("COMIC:3", "COMIC:2", "VIDEO:1", "COMIC:4");

    join(env.service.clear(UID, List.of(Business.COMIC, Business.COMIC), false));

    assertThat(listed()).containsExactly("VIDEO:1");
    assertThat(env.sink.ops()).singleElement().asString().startsWith("clear " + UID + " [COMIC] @");
    BatchOutcome late = env.heartbeat(record(UID, Business.COMIC, 2, 1, before + 5),
        record(UID, Business.VIDEO, 8, 1, before + 5));
    assertThat(late.writes().get(0).applied(0)).isFalse();
    assertThat(late.writes().get(0).applied(1)).isTrue();
    assertThat(listed()).containsExactly("VIDEO:8", "VIDEO:1");
  }

  @Test
  void clearOfEverythingEmptiesBothTiersForReadersAndStaysCleared() {
    env.heartbeat(record(UID, Business.VIDEO, 1, 1, before), record(UID, Business.LIVE, 2, 1, before + 1));
    env.persist(record(UID, Business.ARTICLE, 3, 1, before - 10));
    assertThat(listed()).hasSize(3);

    join(env.service.clear(UID, List.of(), true));

    assertThat(listed()).isEmpty();
    assertThat(env.timeline(UID)).containsExactly("~c");
    assertThat(env.sink.ops()).singleElement().asString().startsWith("clear " + UID + " [] @");
    env.heartbeat(record(UID, Business.VIDEO, 1, 1, before + 10));
    assertThat(listed()).isEmpty();
    env.heartbeat(record(UID, Business.AUDIO, 5, 1, System.currentTimeMillis() + 1000));
    assertThat(listed()).containsExactly("AUDIO:5");
  }

  @Test
  void clearingAHeavyUsersBusinessIsOneShortScript(RedisNamespace redis, HBaseNamespace hbase) throws Exception {
    env.close();
    env = new QueryTestEnv(redis, hbase, Map.of("history.redis.max.items", "20000"));
    List<HistoryRecord> batch = new ArrayList<>();
    for (int i = 0; i < 12_000; i++) {
      batch.add(record(UID, i % 2 == 0 ? Business.VIDEO : Business.COMIC, i + 1, i, before - i));
      if (batch.size() == 1000) {
        env.heartbeat(batch.toArray(new HistoryRecord[0]));
        batch.clear();
      }
    }

    long start = System.nanoTime();
    env.service.clear(UID, List.of(Business.COMIC), false).toCompletableFuture().get(5, TimeUnit.SECONDS);

    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5_000);
    assertThat(join(env.redis.shared().zcard(env.keys.timeline(UID)))).isEqualTo(6_000);
    assertThat(join(env.redis.shared().hlen(env.keys.records(UID)))).isEqualTo(6_000);
  }

  @Test
  void pauseIsAKeyWithoutExpiryThatStopsRecordingUntilResumed() {
    assertThat(join(env.service.paused(UID))).isFalse();
    assertThat(join(env.service.setPaused(UID, true))).isTrue();
    assertThat(join(env.service.paused(UID))).isTrue();
    assertThat(join(env.redis.shared().pttl(env.keys.paused(UID)))).isEqualTo(-1);
    assertThat(env.heartbeat(record(UID, Business.VIDEO, 1, 1, before)).writes().get(0).paused()).isTrue();
    assertThat(listed()).isEmpty();

    assertThat(join(env.service.setPaused(UID, false))).isFalse();
    assertThat(join(env.service.paused(UID))).isFalse();
    env.heartbeat(record(UID, Business.VIDEO, 1, 1, before));
    assertThat(listed()).containsExactly("VIDEO:1");
  }
}
