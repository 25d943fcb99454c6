package io.playline.job.compact;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.core.compact.HistoryCompactor;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Pages whose cursor falls inside a chunk, on real Redis and HBase. */
@ExtendWith({RealRedisExtension.class, RealHBaseExtension.class})
class ChunkedPagesTest {
  @Test
  void aPageFromACursorNearAChunksEndIsStillFull(RedisNamespace redis, HBaseNamespace hbase) throws Exception {
    // Chunks of ~100 records, bigger than a page's HBase read (2 x 10 + 16): the chunk a cursor falls
    // in may hold only a few records after it, and the page must go on into the next chunk.
    try (CompactionEnv env = new CompactionEnv(redis, hbase, Map.of("history.compact.threshold", "200",
        "history.compact.keep", "50", "history.compact.chunk.bytes", "8192", "history.redis.max.items", "20"),
        async -> async)) {
      long uid = 7301;
      long now = System.currentTimeMillis();
      List<HistoryRecord> newestFirst = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        newestFirst.add(HistoryRecord.newBuilder().setUid(uid).setBusiness(i % 3 == 0 ? Business.VIDEO : Business.COMIC)
            .setOid(1 + i).setProgressMs(i).setDurationMs(600_000).setViewTimeMs(now - (i + 1) * 60_000L)
            .setDeviceId("d1").setPlatform("web").build());
      }
      env.upsert(uid, newestFirst);
      HistoryCompactor.Result rolled = env.compactor.compact(uid, false);
      assertThat(rolled.outcome()).isEqualTo(HistoryCompactor.Outcome.ROLLED_UP);
      assertThat(rolled.chunked() / rolled.chunks()).as("records per chunk").isGreaterThan(36);

      List<Integer> shortPages = new ArrayList<>();
      for (int depth = 20; depth <= 990; depth++) {
        HistoryRecord at = newestFirst.get(depth - 1);
        Cursor cursor = Cursor.newBuilder().setViewTimeMs(at.getViewTimeMs())
            .setItem(ItemKey.newBuilder().setBusiness(at.getBusiness()).setOid(at.getOid())).build();
        HistoryPage page = env.service.list(uid, List.of(), cursor, 10).toCompletableFuture().get(60, TimeUnit.SECONDS);
        assertThat(page.getRecordsList()).as("page after record %d", depth)
            .isEqualTo(newestFirst.subList(depth, depth + page.getRecordsCount()));
        if (page.getRecordsCount() < 10) {
          shortPages.add(depth);
        }
      }
      assertThat(shortPages).as("cursors whose page came back short").isEmpty();
    }
  }
}
