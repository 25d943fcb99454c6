package io.playline.gateway.session;

import io.playline.core.query.HistoryService;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.HistoryPage;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * What a player's stream may ask of its user's history: read progress, list a page, delete items,
 * clear businesses. It is narrower than {@link HistoryService}, which also serves backends (pause,
 * item statistics), so that a session depends only on what a player may do and a test can fake it
 * in memory. In production {@link #of} the node's {@link HistoryService}.
 *
 * <p>The contract is the service's: thread-safe, never blocks the caller, stages may complete on
 * other threads; invalid input completes exceptionally with a client-safe message.
 */
public interface PlayerHistory {
  /** Found records of {@code uid} in request order, misses omitted ({@link HistoryService#progress}). */
  CompletionStage<List<HistoryRecord>> progress(long uid, List<ItemKey> items);

  /** One page of {@code uid}'s timeline, newest first ({@link HistoryService#list}). */
  CompletionStage<HistoryPage> list(long uid, List<Business> businesses, @Nullable Cursor after, int limit);

  /** Deletes {@code uid}'s items in every tier ({@link HistoryService#delete}). */
  CompletionStage<Void> delete(long uid, List<ItemKey> items);

  /** Clears {@code businesses}, or every business, of {@code uid} ({@link HistoryService#clear}). */
  CompletionStage<Void> clear(long uid, List<Business> businesses, boolean allBusinesses);

  /** The player's share of the node's history service. */
  static PlayerHistory of(HistoryService history) {
    return new PlayerHistory() {
      @Override
      public CompletionStage<List<HistoryRecord>> progress(long uid, List<ItemKey> items) {
        return history.progress(uid, items);
      }

      @Override
      public CompletionStage<HistoryPage> list(long uid, List<Business> businesses, @Nullable Cursor after,
          int limit) {
        return history.list(uid, businesses, after, limit);
      }

      @Override
      public CompletionStage<Void> delete(long uid, List<ItemKey> items) {
        return history.delete(uid, items);
      }

      @Override
      public CompletionStage<Void> clear(long uid, List<Business> businesses, boolean allBusinesses) {
        return history.clear(uid, businesses, allBusinesses);
      }
    };
  }
}
