package io.playline.core.query;

import io.playline.core.aggregate.WriteBackAggregator;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ItemKey;
import java.util.List;

/**
 * Where deletes and clears go once Redis applied them: the write-back, which carries them through
 * Kafka in the user's order to the job that applies them to HBase at the same time. Implementations
 * are thread-safe and do not block (they are called on Redis I/O threads).
 */
public interface TombstoneSink {
  /**
   * Carries the delete of {@code items} at {@code timeMs}, whose recovery mark is {@code mark}; may
   * throw when it cannot take more.
   */
  void delete(long uid, List<ItemKey> items, long timeMs, byte[] mark);

  /**
   * Carries the clear of {@code businesses} (empty = all) at {@code timeMs}, whose recovery mark is
   * {@code mark}; may throw when full.
   */
  void clear(long uid, List<Business> businesses, long timeMs, byte[] mark);

  /** The write-back aggregator as a sink. */
  static TombstoneSink of(WriteBackAggregator aggregator) {
    return new TombstoneSink() {
      @Override
      public void delete(long uid, List<ItemKey> items, long timeMs, byte[] mark) {
        aggregator.delete(uid, items, timeMs, mark);
      }

      @Override
      public void clear(long uid, List<Business> businesses, long timeMs, byte[] mark) {
        aggregator.clear(uid, businesses, timeMs, mark);
      }
    };
  }
}
