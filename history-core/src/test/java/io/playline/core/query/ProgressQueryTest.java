package io.playline.core.query;

import static io.playline.core.query.QueryTestEnv.item;
import static io.playline.core.query.QueryTestEnv.join;
import static io.playline.core.query.QueryTestEnv.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.playline.proto.v1.Business;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Point progress: Redis hits, misses without HBase by default, the fallback switch, retention. */
@ExtendWith({RealRedisExtension.class, RealHBaseExtension.class})
class ProgressQueryTest {
  private static final long UID = 3003;
  private QueryTestEnv env;

  @AfterEach
  void tearDown() {
    env.close();
  }

  @Test
  void hitsComeBackInRequestOrderOnceEachAndMissesAreOmittedWithoutAnHBaseRead(RedisNamespace redis,
      HBaseNamespace hbase) {
    env = new QueryTestEnv(redis, hbase, Map.of());
    HistoryRecord video = record(UID, Business.VIDEO, 1, 5_000, env.now - 1000);
    HistoryRecord comic = record(UID, Business.COMIC, 2, 7, env.now - 500);
    env.heartbeat(video, comic);
    env.persist(record(UID, Business.AUDIO, 3, 1, env.now - 2000));

    List<HistoryRecord> found = join(env.service.progress(UID, List.of(item(Business.COMIC, 2),
        item(Business.AUDIO, 3), item(Business.VIDEO, 1), item(Business.COMIC, 2), item(Business.LIVE, 4))));

    assertThat(found).containsExactly(comic, video);
    assertThat(env.counter("playline.query.hbase.reads")).isZero();
    assertThat(env.counter("playline.query.tier", "kind", "progress", "tier", "redis")).isEqualTo(1);
    assertThat(join(env.service.progress(UID, List.of()))).isEmpty();
  }

  @Test
  void fallbackSwitchReadsMissesFromHBaseHonouringTombstones(RedisNamespace redis, HBaseNamespace hbase) {
    env = new QueryTestEnv(redis, hbase, Map.of("query.progress.hbase.fallback", "true"));
    HistoryRecord video = record(UID, Business.VIDEO, 1, 5_000, env.now - 1000);
    HistoryRecord audio = record(UID, Business.AUDIO, 3, 1, env.now - 2000);
    env.heartbeat(video);
    env.persist(audio, record(UID, Business.LIVE, 4, 1, env.now - 3000));
    join(env.service.delete(UID, List.of(item(Business.LIVE, 4))));

    List<HistoryRecord> found = join(env.service.progress(UID, List.of(item(Business.AUDIO, 3),
        item(Business.VIDEO, 1), item(Business.LIVE, 4), item(Business.COMIC, 9))));

    assertThat(found).containsExactly(audio, video);
    assertThat(env.counter("playline.query.hbase.reads")).isEqualTo(1);
    assertThat(env.counter("playline.query.tier", "kind", "progress", "tier", "hbase")).isEqualTo(1);
  }

  @Test
  void perBusinessRetentionHidesAnOldLiveRecordButNotAnEquallyOldVideo(RedisNamespace redis, HBaseNamespace hbase) {
    env = new QueryTestEnv(redis, hbase, Map.of("history.retention.live", "7d", "query.progress.hbase.fallback", "true"));
    long eightDaysAgo = env.now - 8 * QueryTestEnv.DAY;
    HistoryRecord video = record(UID, Business.VIDEO, 1, 1, eightDaysAgo);
    env.heartbeat(video, record(UID, Business.LIVE, 2, 1, eightDaysAgo));
    HistoryRecord oldVideoInHBase = record(UID, Business.VIDEO, 5, 1, eightDaysAgo - 1);
    env.persist(oldVideoInHBase, record(UID, Business.LIVE, 6, 1, eightDaysAgo - 1));
    HistoryRecord freshLive = record(UID, Business.LIVE, 7, 1, env.now - QueryTestEnv.DAY);
    env.heartbeat(freshLive);

    assertThat(join(env.service.progress(UID, List.of(item(Business.VIDEO, 1), item(Business.LIVE, 2),
        item(Business.VIDEO, 5), item(Business.LIVE, 6), item(Business.LIVE, 7)))))
        .containsExactly(video, oldVideoInHBase, freshLive);
    assertThat(env.listAll(UID, List.of(), 10)).containsExactly(freshLive, video, oldVideoInHBase);
    assertThat(env.listAll(UID, List.of(Business.LIVE), 10)).containsExactly(freshLive);
  }
}
