package io.playline.core.query;

import io.playline.proto.v1.Business;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.HistoryPage;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ItemStats;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * Every read and user control of one user's history. Thread-safe; never blocks the caller (stages
 * complete on I/O threads); safe to call from event loops. Invalid input completes exceptionally
 * with {@link InvalidRequestException} (client-safe message naming the field); backend failure with
 * {@link io.playline.core.store.RetriableStoreException} or another exception.
 */
public interface HistoryService {
  /** Found records in request order, misses omitted, duplicates answered once. */
  CompletionStage<List<HistoryRecord>> progress(long uid, List<ItemKey> items);

  /**
   * {@link #progress(long, List)} of each request, answers in request order; every request is
   * validated before anything is read, and a refusal names the request. At most {@code
   * query.batch.max.requests} requests naming {@code query.batch.max.items} items together. All or
   * nothing: one lookup failing fails the whole, with the failure that lookup's own call would get.
   */
  CompletionStage<List<List<HistoryRecord>>> progress(List<GetProgressRequest> requests);

  /**
   * One page of the timeline, newest first by view time ({@code records}, {@code next}, {@code
   * has_more}); {@code businesses} empty = all; {@code after} null = first page; {@code limit} 0 =
   * the default.
   */
  CompletionStage<HistoryPage> list(long uid, List<Business> businesses, @Nullable Cursor after, int limit);

  /** Deletes items in every tier; done when every later query sees it. Empty = no-op. */
  CompletionStage<Void> delete(long uid, List<ItemKey> items);

  /**
   * Clears {@code businesses}, or with {@code allBusinesses} every business, in every tier. Exactly
   * one scope: an empty list without {@code allBusinesses}, or a list with it, is invalid, so a
   * request whose list was emptied on the way never clears everything.
   */
  CompletionStage<Void> clear(long uid, List<Business> businesses, boolean allBusinesses);

  /** Pauses or resumes recording; returns the new state. */
  CompletionStage<Boolean> setPaused(long uid, boolean paused);

  /** Whether recording is paused for the user. */
  CompletionStage<Boolean> paused(long uid);

  /**
   * The counters of {@code items} across all users, one per distinct item in request order
   * (zeros for an item nobody played); at most {@code query.max.items} items.
   */
  CompletionStage<List<ItemStats>> itemStats(List<ItemKey> items);
}
