package io.playline.bench.reads;

import io.playline.proto.v1.Business;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * The history every stored user of {@code bench reads} has, and where its deep pages fall: the
 * i-th newest record viewed (i + 1) steps before {@code now}, a step being 30 days / items,
 * businesses in turn. Thread-safe (the lists are computed once per size and shared).
 */
final class StoredHistory {
  private static final Business[] BUSINESSES = {Business.VIDEO, Business.EPISODE, Business.ARTICLE, Business.COMIC,
      Business.AUDIO};
  private static final long SPAN_MS = Duration.ofDays(30).toMillis();

  private final long now;
  private final int inRedis;
  private final int deepItems;
  private final int page;
  private final Map<Integer, List<HistoryRecord>> histories = new ConcurrentHashMap<>();

  /**
   * @param inRedis how many of a user's newest records Redis holds ({@code history.redis.max.items})
   * @param deepItems how many records a deep user has
   * @param page the records of one page
   */
  StoredHistory(long now, int inRedis, int deepItems, int page) {
    this.now = now;
    this.inRedis = inRedis;
    this.deepItems = deepItems;
    this.page = page;
  }

  /** A user's {@code n} records, newest first (the same for every user; computed once per n). */
  List<HistoryRecord> records(int n) {
    return histories.computeIfAbsent(n, k -> {
      long step = Math.max(1, SPAN_MS / k);
      List<HistoryRecord> records = new ArrayList<>(k);
      for (int i = 0; i < k; i++) {
        records.add(HistoryRecord.newBuilder().setBusiness(BUSINESSES[i % BUSINESSES.length]).setOid(10_000_000L + i)
            .setProgressMs(1000L * (i % 1200)).setDurationMs(1_440_000).setViewTimeMs(now - (i + 1) * step)
            .setDeviceId("bench").setPlatform("bench").build());
      }
      return List.copyOf(records);
    });
  }

  /** The cursor of a page at a random depth past Redis: the record just before the page. */
  Cursor deepPageCursor() {
    HistoryRecord at = deepPageStart();
    return Cursor.newBuilder().setViewTimeMs(at.getViewTimeMs())
        .setItem(ItemKey.newBuilder().setBusiness(at.getBusiness()).setOid(at.getOid())).build();
  }

  /** The record just before a page at a random depth past Redis of a deep user. */
  HistoryRecord deepPageStart() {
    return records(deepItems).get(deepCursor(inRedis, deepItems, page, ThreadLocalRandom.current()) - 1);
  }

  /**
   * A random cursor depth (records before the page, the cursor being the last of them) past the
   * {@code inRedis} newest records Redis holds, leaving a whole page of {@code items} after it.
   */
  static int deepCursor(int inRedis, int items, int page, RandomGenerator random) {
    int shallowest = inRedis + 1;
    return shallowest + random.nextInt(items - page - shallowest + 1);
  }
}
