package io.playline.core.write;

import java.util.concurrent.CompletionStage;

/**
 * The write-through step: applies a batch to the hot store in (about) one round trip. A batch
 * completes as a whole: when the stage completes normally, every write in it is durable in the
 * store as far as the store promises, and the caller may ack. Implementations say which thread
 * may call them.
 */
public interface HistoryWriter {
  CompletionStage<BatchOutcome> write(WriteBatch batch);
}
