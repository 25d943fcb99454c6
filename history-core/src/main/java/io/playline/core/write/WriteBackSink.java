package io.playline.core.write;

import java.util.List;

/**
 * Receives what the write-through applied, for the write-back to Kafka. The writer calls {@link
 * #batchStarted} before it sends a batch and {@link #batchFinished} once Redis answered (with
 * nothing applied when the batch failed), so a closing sink can wait for batches in flight.
 * Thread-safe implementations only.
 */
public interface WriteBackSink {
  void batchStarted();

  void batchFinished(List<AppliedRecord> applied);

  /** Discards everything; for tests and for setups without write-back. */
  WriteBackSink NONE = new WriteBackSink() {
    @Override
    public void batchStarted() {}

    @Override
    public void batchFinished(List<AppliedRecord> applied) {}
  };
}
