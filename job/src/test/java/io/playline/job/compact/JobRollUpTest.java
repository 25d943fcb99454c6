package io.playline.job.compact;

import static io.playline.job.JobTestEnv.batch;
import static io.playline.job.JobTestEnv.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.playline.core.store.CompactedIndex;
import io.playline.core.store.HistoryChunks;
import io.playline.core.store.HistoryRowKeys;
import io.playline.job.JobTestEnv;
import io.playline.job.PlaylineJob;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ChunkIndex;
import io.playline.proto.v1.HistoryChange;
import io.playline.proto.v1.HistoryRecord;
import io.playline.testing.HBaseNamespace;
import io.playline.testing.KafkaNamespace;
import io.playline.testing.RealHBaseExtension;
import io.playline.testing.RealKafkaExtension;
import io.playline.testing.RealRedisExtension;
import io.playline.testing.RedisNamespace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The job role as the launchers wire it rolls a heavy user up from what it consumes (Kafka → HBase → chunks). */
@ExtendWith({RealRedisExtension.class, RealKafkaExtension.class, RealHBaseExtension.class})
class JobRollUpTest {

  @Test
  void theJobRollsUpAUserWhoseConsumedRecordsPassTheThreshold(RedisNamespace redis, KafkaNamespace kafka,
      HBaseNamespace hbase) throws Exception {
    long uid = 9001;
    try (JobTestEnv env = JobTestEnv.create(redis, kafka, hbase, Map.of("history.compact.threshold", "50",
        "history.compact.keep", "10", "history.compact.check.every", "20"));
        PlaylineJob job = env.newJob()) {
      job.start();
      await().atMost(Duration.ofSeconds(60)).until(job::readiness);
      for (int round = 0; round < 3; round++) {
        List<HistoryRecord> records = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
          int n = round * 30 + i;
          records.add(record(uid, Business.VIDEO, 1 + n, n, env.base + n));
        }
        env.produce(batch(env.base + 1000 + round, HistoryChange.newBuilder().setUid(uid).addAllUpserts(records)
            .build()));
      }
      // 90 records consumed (in one poll or several: each check sees what is persisted by then): once
      // rolled up, every record is either live or chunked, the oldest in a chunk, the newest live.
      await().atMost(Duration.ofSeconds(90)).ignoreExceptions().until(() -> {
        ChunkIndex index = index(env, uid).index();
        return index != null && index.getChunksList().stream().mapToInt(c -> c.getCount()).sum() + live(env, uid) == 90;
      });
      assertThat(live(env, uid)).isLessThanOrEqualTo(50);
      assertThat(env.cell(uid, Business.VIDEO, 90)).isNotNull();
      assertThat(env.cell(uid, Business.VIDEO, 1)).as("rolled up").isNull();
      assertThat(env.counter("playline.job.compact.moved")).isGreaterThanOrEqualTo(40);
    }
  }

  /** Live cells of the user's history row. */
  private static int live(JobTestEnv env, long uid) throws Exception {
    try (Table t = env.hbase.connection().getTable(env.config.table())) {
      Result row = t.get(new Get(HistoryRowKeys.row(uid)));
      return row.isEmpty() ? 0 : row.rawCells().length;
    }
  }

  private static CompactedIndex index(JobTestEnv env, long uid) throws Exception {
    try (Table t = env.hbase.connection().getTable(HistoryChunks.table(env.config.table()))) {
      Result row = t.get(new Get(HistoryRowKeys.row(uid)));
      return CompactedIndex.parse(row);
    }
  }
}
