package io.playline.job.sink;

import io.playline.core.store.RetriableStoreException;
import io.playline.proto.v1.HistoryChange;
import java.util.List;

/**
 * Persistent history: applies resolved changes so that, per user and item, the record with the
 * latest view time wins and a delete or clear removes every record not after its time, for good
 * (an older record written later does not come back). Applying the same changes again is
 * harmless, so callers retry and replay freely.
 *
 * <p>Implementations are thread-safe; {@link #write} blocks the calling thread (bounded by the
 * store's operation timeout) and must not be called on an event loop.
 */
public interface HistorySink extends AutoCloseable {

  /**
   * Applies {@code changes} durably and returns only once the store accepted all of them: each
   * change's {@code upserts} are the records to store (already resolved: the newest known record
   * per item, none covered by a delete or clear), its {@code deletes} and {@code clears} are
   * applied by time.
   *
   * @throws RetriableStoreException when the store is unreachable, slow or busy: retry the same
   *     call later; part of it may have been applied
   * @throws RuntimeException any other failure (missing table, bug): retrying will not help
   */
  void write(List<HistoryChange> changes);

  /** Creates what the store needs (e.g. the table) when missing; blocks; call once at start-up. */
  void prepare();

  @Override
  void close();
}
