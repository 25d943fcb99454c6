package io.playline.core.write;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.playline.core.store.RedisKeys;
import io.playline.time.LogThrottle;
import io.playline.time.Time;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the recovery-log entries Kafka acknowledged: one {@code XDEL} per log shard per flush
 * (per {@value #IDS_PER_DELETE} ids),
 * on the auto-flushing connection, never waited for. A delete that fails leaves its entries for
 * the job's recovery sweep, which persists their items once more (harmless: the job's writes are
 * idempotent); failures are counted and logged at most every 10 s. Thread-safe.
 */
public final class RecoveryLog implements RecoveryTrim {
  private static final Logger log = LoggerFactory.getLogger(RecoveryLog.class);
  /** Ids per XDEL: after a long Kafka outage a flush may acknowledge many, and one command must stay short. */
  static final int IDS_PER_DELETE = 1000;

  private final RedisClusterAsyncCommands<byte[], byte[]> redis;
  private final RedisKeys keys;
  private final Counter deleted;
  private final Counter failures;
  private final LogThrottle warnings;

  public RecoveryLog(RedisClusterAsyncCommands<byte[], byte[]> redis, RedisKeys keys, MeterRegistry registry,
      Time time) {
    this.redis = redis;
    this.warnings = new LogThrottle(time);
    this.keys = keys;
    this.deleted = Counter.builder("playline.writeback.recovery.entries.deleted")
        .description("Recovery-log entries deleted once Kafka acknowledged the write-back records carrying their items")
        .register(registry);
    this.failures = Counter.builder("playline.writeback.recovery.delete.failures")
        .description("Deletes of acknowledged recovery-log entries that failed (the job's sweep persists their items)")
        .register(registry);
  }

  @Override
  public void acked(Collection<RecoveryEntry> entries) {
    Map<Integer, List<String>> byShard = new LinkedHashMap<>();
    for (RecoveryEntry e : entries) {
      byShard.computeIfAbsent(e.shard(), s -> new ArrayList<>()).add(e.id());
    }
    byShard.forEach((shard, all) -> {
      for (int from = 0; from < all.size(); from += IDS_PER_DELETE) {
        List<String> ids = all.subList(from, Math.min(all.size(), from + IDS_PER_DELETE));
        try {
          redis.xdel(keys.recoveryLog(shard), ids.toArray(new String[0])).whenComplete((n, error) -> {
            if (error != null) {
              failed(ids.size(), error);
            } else {
              deleted.increment(n);
            }
          });
        } catch (RuntimeException error) {
          failed(ids.size(), error);
        }
      }
    });
  }

  private void failed(int entries, Throwable error) {
    failures.increment();
    if (warnings.tryAcquire()) {
      log.warn("Deleting {} acknowledged recovery-log entries failed; the job's recovery sweep persists their items "
          + "again: {}", entries, error.toString());
    }
  }

  /** Entries deleted so far; for tests. */
  public double deleted() {
    return deleted.count();
  }
}
