package io.playline.core.compact;

import java.time.Duration;

/**
 * How roll-ups are done (the job reads it from its {@code history.compact.*} keys). Immutable.
 *
 * @param threshold a user's live cells above this are rolled up ({@code history.compact.threshold})
 * @param keep the newest records left live by a roll-up ({@code history.compact.keep}), &lt; threshold
 * @param chunkBytes the most uncompressed record bytes per chunk ({@code history.compact.chunk.bytes})
 * @param batchSize mutations per HBase call ({@code hbase.batch.size})
 * @param timeout bound of one HBase call, retries included ({@code hbase.operation.timeout})
 * @param maxRecords a user with more records (live and chunked) is not rolled up: a roll-up holds
 *     them all in memory ({@code history.compact.max.records})
 * @param age a user with more than {@code keep} live cells whose oldest is older than this is rolled
 *     up too, below the threshold ({@code history.compact.age}); zero = only by the threshold
 */
public record CompactionConfig(int threshold, int keep, int chunkBytes, int batchSize, Duration timeout,
    int maxRecords, Duration age) {
  public CompactionConfig {
    if (keep < 0 || keep >= threshold) {
      throw new IllegalArgumentException("history.compact.keep: " + keep + " (expected: 0 ≤ keep < "
          + "history.compact.threshold " + threshold + ")");
    }
    if (chunkBytes < 1024 || batchSize < 1 || maxRecords < 1 || age.isNegative()) {
      throw new IllegalArgumentException("chunk bytes " + chunkBytes + " / batch size " + batchSize);
    }
  }
}
