package io.playline.node.push;

import io.playline.proto.v1.HistoryRecord;
import java.util.concurrent.CompletionStage;

/**
 * The internal entry point for backends to tell a user's connected devices that an item's
 * progress is now {@code record} (each receives a {@code ProgressSync}), on whichever player-edge
 * nodes they are connected, through the same route and coalescing as heartbeat-driven syncs.
 *
 * <p>Thread-safe and non-blocking.
 */
public interface PushService {
  /**
   * Pushes {@code record} to every connected device of {@code uid}. The stage completes when the
   * local connections were handed the record and the other nodes holding the user accepted it
   * from Redis, or fails when the registry or a publish failed; delivery itself is best-effort.
   *
   * @throws IllegalArgumentException when {@code uid} is not positive or the record is another user's
   */
  CompletionStage<Void> push(long uid, HistoryRecord record);
}
