package io.playline.gateway.heartbeat;

import io.playline.node.write.PendingWrite;
import io.playline.node.write.WriteBatcher;

/**
 * Where the heartbeat step hands a heartbeat's records, and what it tells the write path's meters:
 * in production the node's {@link WriteBatcher} ({@link #of}), in a test whatever records the
 * submissions and answers them. Thread-safe.
 */
public interface WritePath {
  /** Now on the write path's clock: what {@link PendingWrite#receivedNanos()} is read from. */
  long nanoTime();

  /**
   * Queues a heartbeat; its {@link PendingWrite#callback() callback} is answered once it is written or
   * failed. False when the queue is full (the caller answers with an error).
   */
  boolean submit(PendingWrite write);

  /** A heartbeat received at {@code receivedNanos} (this path's clock) was answered now. */
  void answered(long receivedNanos);

  /** The node's batcher as the heartbeat step's write path. */
  static WritePath of(WriteBatcher batcher) {
    return new WritePath() {
      @Override
      public long nanoTime() {
        return batcher.nanoTime();
      }

      @Override
      public boolean submit(PendingWrite write) {
        return batcher.submit(write);
      }

      @Override
      public void answered(long receivedNanos) {
        batcher.metrics().answered(receivedNanos);
      }
    };
  }
}
