package io.playline.core.write;

import io.playline.proto.v1.HistoryRecord;
import java.util.List;

/**
 * Receives what the write-through applied, for the write-back to Kafka. The writer calls {@link
 * #batchStarted} before it sends a batch stamped {@code nowMs} and {@link #batchFinished} with the
 * same stamp once Redis answered (with nothing applied when the batch failed), so the sink knows
 * which stamps may still be in flight when it takes a snapshot. Thread-safe implementations only.
 */
public interface WriteBackSink {
  void batchStarted(long nowMs);

  void batchFinished(long nowMs, List<HistoryRecord> applied);

  /** Discards everything; for tests and for setups without write-back. */
  WriteBackSink NONE = new WriteBackSink() {
    @Override
    public void batchStarted(long nowMs) {}

    @Override
    public void batchFinished(long nowMs, List<HistoryRecord> applied) {}
  };
}
