package io.playline.core.query;

import static io.playline.core.query.QueryTestEnv.item;
import static io.playline.core.query.QueryTestEnv.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.playline.proto.v1.Business;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.HistoryPage;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The timeline as heartbeats write it: order, cursor paging under concurrent writes, business filter. */
@ExtendWith({RealRedisExtension.class, RealHBaseExtension.class})
class ListHistoryTest {
  private static final long UID = 1001;
  private QueryTestEnv env;
  private long base;

  @BeforeEach
  void setUp(RedisNamespace redis, HBaseNamespace hbase) {
    env = new QueryTestEnv(redis, hbase, Map.of());
    base = env.now - QueryTestEnv.DAY;
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  @Test
  void newestFirstWithEqualViewTimesOrderedByMember() {
    env.heartbeat(record(UID, Business.VIDEO, 10, 1, base), record(UID, Business.VIDEO, 5, 1, base),
        record(UID, Business.COMIC, 5, 1, base), record(UID, Business.ARTICLE, 7, 1, base + 1),
        record(UID, Business.VIDEO, 3, 1, base - 1));

    List<HistoryRecord> all = env.listAll(UID, List.of(), 2);

    // Same time: members "3:5" > "1:5" > "1:10" in byte order, descending.
    assertThat(all).extracting(r -> r.getBusiness() + ":" + r.getOid())
        .containsExactly("ARTICLE:7", "COMIC:5", "VIDEO:5", "VIDEO:10", "VIDEO:3");
    assertThat(all).allSatisfy(r -> assertThat(r.getUid()).isEqualTo(UID));
  }

  @Test
  void firstListOfAHeartbeatOnlyTimelineWarmsItOnceThenPagesStayInRedis() {
    for (int i = 0; i < 10; i++) {
      env.heartbeat(record(UID, Business.VIDEO, i + 1, i, base + i));
    }
    assertThat(env.listAll(UID, List.of(), 3)).hasSize(10);
    assertThat(env.counter("playline.query.warmups")).isEqualTo(1);
    assertThat(env.timeline(UID)).first().isEqualTo("~c");

    double hbaseReads = env.counter("playline.query.hbase.reads");
    assertThat(env.listAll(UID, List.of(), 3)).hasSize(10);
    assertThat(env.counter("playline.query.hbase.reads")).isEqualTo(hbaseReads);
    assertThat(env.counter("playline.query.tier", "kind", "list", "tier", "redis")).isGreaterThanOrEqualTo(4);
  }

  @Test
  void cursorPagingWhileHeartbeatsArriveNeverRepeatsOrSkipsARecord() {
    int items = 30;
    for (int i = 0; i < items; i++) {
      env.heartbeat(record(UID, Business.VIDEO, i + 1, i, base + i * 1000L));
    }
    List<String> served = new ArrayList<>();
    Set<Long> moved = new HashSet<>();
    Cursor after = null;
    long tick = 0;
    do {
      HistoryPage page = env.page(UID, List.of(), after, 4);
      page.getRecordsList().forEach(r -> served.add(r.getBusiness() + ":" + r.getOid() + "@" + r.getViewTimeMs()));
      after = page.getHasMore() ? page.getNext() : null;
      // Between pages: a brand-new item and an old one whose progress moves both jump to the top.
      tick++;
      env.heartbeat(record(UID, Business.COMIC, tick, 1, env.now + tick));
      long mover = items - 4 * tick;
      if (mover > 0) {
        moved.add(mover);
        env.heartbeat(record(UID, Business.VIDEO, mover, 99, env.now + tick));
      }
    } while (after != null);

    assertThat(served).doesNotHaveDuplicates();
    List<String> expected = new ArrayList<>();
    for (int i = items - 1; i >= 0; i--) {
      long oid = i + 1;
      // A record that moved before the paging reached it is ahead of the cursor now: skipped, not lost.
      boolean reachedFirst = served.contains("VIDEO:" + oid + "@" + (base + i * 1000L));
      if (!moved.contains(oid) || reachedFirst) {
        expected.add("VIDEO:" + oid + "@" + (base + i * 1000L));
      }
    }
    assertThat(served).containsExactlyElementsOf(expected);
    assertThat(expected.size()).isGreaterThan(items / 2);
  }

  @Test
  void businessFilterPagesOnlyTheNamedBusinesses() {
    List<String> wanted = new ArrayList<>();
    for (int i = 0; i < 24; i++) {
      Business b = List.of(Business.VIDEO, Business.COMIC, Business.LIVE).get(i % 3);
      env.heartbeat(record(UID, b, 100 + i, i, base + i));
      if (b != Business.VIDEO) {
        wanted.add(0, b + ":" + (100 + i));
      }
    }

    List<HistoryRecord> page = env.listAll(UID, List.of(Business.COMIC, Business.LIVE), 5);

    assertThat(page).extracting(r -> r.getBusiness() + ":" + r.getOid()).containsExactlyElementsOf(wanted);
    assertThat(env.listAll(UID, List.of(Business.AUDIO), 5)).isEmpty();
  }

  /** A filter matching only the oldest few of hundreds of entries: the page read scans chunk after growing chunk. */
  @Test
  void aSparseFilterFindsItsItemsBehindHundredsOfOthers() {
    List<HistoryRecord> records = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      records.add(record(UID, Business.LIVE, 900 + i, i, base + i));
    }
    for (int i = 0; i < 300; i++) {
      records.add(record(UID, Business.VIDEO, i + 1, i, base + 10 + i));
    }
    env.heartbeat(records.toArray(HistoryRecord[]::new));

    assertThat(env.listAll(UID, List.of(Business.LIVE), 2)).extracting(r -> r.getBusiness() + ":" + r.getOid())
        .containsExactly("LIVE:902", "LIVE:901", "LIVE:900");
    assertThat(env.listAll(UID, List.of(), 7)).hasSize(303);
  }

  @Test
  void zeroLimitMeansTheDefaultPageSize() {
    for (int i = 0; i < 25; i++) {
      env.heartbeat(record(UID, Business.AUDIO, i + 1, i, base + i));
    }
    HistoryPage page = env.page(UID, List.of(), null, 0);
    assertThat(page.getRecordsCount()).isEqualTo(20);
    assertThat(page.getHasMore()).isTrue();
    ItemKey last = page.getNext().getItem();
    assertThat(last).isEqualTo(item(Business.AUDIO, 6));
  }
}
