package io.playline.bench.load;

import io.playline.proto.v1.HistoryQuery;
import java.util.concurrent.CompletionStage;

/**
 * What {@link LoadSpec.Query#PAGE} players of an in-process {@link LoadGenerator} ask, when not the
 * first page of 20: e.g. a page at a random depth, or a first page of a user made cold again after
 * every answer. Called on the players' event loops: implementations are thread-safe.
 */
public interface PageQueries {
  /** The query player {@code uid} sends next. */
  HistoryQuery next(long uid);

  /** Records a right answer to {@link #next} holds; another count is an error. */
  int expectedRecords();

  /**
   * {@code uid}'s answer arrived; it sends no query before the returned stage completes (e.g. while
   * the bench deletes what the answer left in Redis). Not part of the answer's latency.
   */
  CompletionStage<?> answered(long uid);
}
