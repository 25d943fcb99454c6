package io.playline.node.write;

import io.playline.core.write.BatchOutcome;
import io.playline.core.write.HistoryWriter;
import io.playline.core.write.WriteBatch;
import io.playline.core.write.WriteOutcome;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

/** A writer that records each batch; its round trip ends only when the test completes it. Thread-safe. */
final class HeldWriter implements HistoryWriter {
  final List<WriteBatch> batches = new CopyOnWriteArrayList<>();
  private final List<CompletableFuture<BatchOutcome>> pending = new CopyOnWriteArrayList<>();
  /** From now on every batch is answered as soon as it is written. */
  volatile boolean answerAll;

  @Override
  public synchronized CompletionStage<BatchOutcome> write(WriteBatch batch) {
    CompletableFuture<BatchOutcome> f = new CompletableFuture<>();
    batches.add(batch);
    pending.add(f);
    if (answerAll) {
      answer(batches.size() - 1);
    }
    return f;
  }

  /** Completes round trip {@code i}: every record updated, no user's first today. */
  void answer(int i) {
    WriteBatch batch = batches.get(i);
    List<WriteOutcome> outcomes = new ArrayList<>();
    for (var w : batch.writes()) {
      byte[] codes = new byte[w.records().size()];
      Arrays.fill(codes, WriteOutcome.UPDATED);
      outcomes.add(new WriteOutcome(false, codes));
    }
    pending.get(i).complete(new BatchOutcome(outcomes, new boolean[batch.firstTodays().size()]));
  }

  /** Heartbeats in batch {@code i}. */
  int heartbeats(int i) {
    return batches.get(i).writes().size();
  }
}
