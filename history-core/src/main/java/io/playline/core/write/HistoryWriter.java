package io.playline.core.write;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * The write-through step: applies a batch to the hot store in (about) one round trip. A batch
 * completes as a whole: when the stage completes normally, every write in it is durable in the
 * store as far as the store promises, and the caller may ack. Implementations say which thread
 * may call them.
 */
public interface HistoryWriter {
  CompletionStage<BatchOutcome> write(WriteBatch batch);

  /**
   * The event loop this writer does its I/O on and completes batches on, if it has one: a caller
   * that batches on this loop hands batches over and gets their answers without a thread hop.
   */
  default @Nullable EventExecutor eventLoop() {
    return null;
  }
}
