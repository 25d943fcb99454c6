package io.playline.client;

import io.playline.proto.lite.v1.HistoryRecord;
import org.jspecify.annotations.Nullable;

/**
 * Told what happens on a {@link AbstractPlaylineClient}'s stream, one call at a time on the client's
 * callback executor. Every method has a no-op default, so implement only what you need.
 *
 * <p>Called on the client's callback executor (by default its event loop), one call at a time and
 * in order; implementations must return quickly and must not block (hand work to another thread).
 * An exception thrown by a listener is logged and otherwise ignored.
 */
public interface PlaylineListener {
  /** The connection state changed; {@code cause} says why the connection was lost or the client gave up. */
  default void onStateChanged(ConnectionState state, @Nullable Throwable cause) {}

  /** A heartbeat was acknowledged (its events are written to Redis). */
  default void onAck(Ack ack) {}

  /**
   * The user's first play today ({@code flagDate}, {@code YYYY-MM-DD} in the service's zone) was
   * counted by this client: told at most once per date per client, e.g. to show a daily reward.
   */
  default void onFirstToday(String flagDate) {}

  /** Another device of the user moved an item's progress (best effort; progress queries are the truth). */
  default void onProgressSync(HistoryRecord record) {}

  /**
   * The gateway answered something other than a query with an {@code Error}: the Auth (the client
   * then retries as the code allows), a heartbeat (its events are resent, or dropped when invalid),
   * or the connection just before closing it. Query errors fail their futures instead; dropped
   * events are counted in {@link AbstractPlaylineClient#stats()}.
   */
  default void onError(PlaylineException error) {}
}
