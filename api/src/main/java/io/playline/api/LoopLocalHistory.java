package io.playline.api;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import io.playline.core.query.HistoryService;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.Cursor;
import io.playline.proto.v1.GetProgressRequest;
import io.playline.proto.v1.HistoryPage;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.ItemStats;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * The internal API's read path when each of its I/O loops has a Redis client of its own: a call
 * goes to the path whose client lives on the loop it runs on (both API ports call the service on
 * their connection's loop), so the query is written to Redis, answered and its answer sent without
 * leaving that loop. Called from any other thread, the first loop's path answers. Thread-safe.
 */
final class LoopLocalHistory implements HistoryService {
  /** A loop and the read path whose Redis client lives on it. */
  record OnLoop(EventExecutor loop, HistoryService history) {}

  private final Map<EventExecutor, HistoryService> byLoop = new IdentityHashMap<>();
  private final HistoryService first;

  /** @param paths one per API loop, at least one; the first answers calls made off every loop */
  LoopLocalHistory(List<OnLoop> paths) {
    if (paths.isEmpty()) {
      throw new IllegalArgumentException("no read path");
    }
    for (OnLoop p : paths) {
      byLoop.put(p.loop(), p.history());
    }
    first = paths.get(0).history();
  }

  /** The path for the calling thread: its loop's (Netty's {@link ThreadExecutorMap}), else the first. */
  HistoryService here() {
    EventExecutor loop = ThreadExecutorMap.currentExecutor();
    HistoryService path = loop == null ? null : byLoop.get(loop);
    return path != null ? path : first;
  }

  @Override
  public CompletionStage<List<HistoryRecord>> progress(long uid, List<ItemKey> items) {
    return here().progress(uid, items);
  }

  @Override
  public CompletionStage<List<List<HistoryRecord>>> progress(List<GetProgressRequest> requests) {
    return here().progress(requests);
  }

  @Override
  public CompletionStage<HistoryPage> list(long uid, List<Business> businesses, @Nullable Cursor after, int limit) {
    return here().list(uid, businesses, after, limit);
  }

  @Override
  public CompletionStage<Void> delete(long uid, List<ItemKey> items) {
    return here().delete(uid, items);
  }

  @Override
  public CompletionStage<Void> clear(long uid, List<Business> businesses, boolean allBusinesses) {
    return here().clear(uid, businesses, allBusinesses);
  }

  @Override
  public CompletionStage<Boolean> setPaused(long uid, boolean paused) {
    return here().setPaused(uid, paused);
  }

  @Override
  public CompletionStage<Boolean> paused(long uid) {
    return here().paused(uid);
  }

  @Override
  public CompletionStage<List<ItemStats>> itemStats(List<ItemKey> items) {
    return here().itemStats(items);
  }
}
