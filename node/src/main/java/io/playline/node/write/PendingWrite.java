package io.playline.node.write;

import io.netty.util.concurrent.EventExecutor;
import io.playline.core.write.WriteOutcome;
import io.playline.proto.v1.HistoryRecord;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One submission to the write path waiting for its batch: a player's heartbeat or an internal
 * API {@code Report}.
 *
 * @param uid the user
 * @param records validated records with clamped view times (may be empty only with a first-today check)
 * @param checkFirstToday whether the first-today bit must be checked (the client's echo was not today)
 * @param sessionId the sending connection's session, so pushes skip it
 * @param deviceId for the first-today event and so pushes skip the sending device
 * @param platform for the first-today event
 * @param callback told once when the batch is written or failed: on its {@link Callback#executor()}
 *     when it names one and the batch was written, else on a Lettuce or batcher thread
 * @param receivedNanos the batcher's clock ({@link WriteBatcher#nanoTime()}) when the node read the
 *     heartbeat (its stage timings start there: {@code playline_heartbeat_stage_seconds})
 */
public record PendingWrite(
    long uid, List<HistoryRecord> records, boolean checkFirstToday, String sessionId, String deviceId, String platform,
    Callback callback, long receivedNanos) {

  /**
   * Receives the result of one heartbeat's write. Must hop to its own thread before touching state
   * unless it runs there already (see {@link #executor()}).
   */
  @FunctionalInterface
  public interface Callback {
    /**
     * @param outcome per-record results, null when the batch failed
     * @param firstToday true when this heartbeat is the user's first of the day
     * @param day the day the heartbeat was counted in
     * @param error why the batch failed, null on success
     */
    void done(@Nullable WriteOutcome outcome, boolean firstToday, FlagCalendar.Day day, @Nullable Throwable error);

    /**
     * The thread the callback runs on (a connection's I/O loop), or null for any. The answers of a
     * written batch for one executor go to it as one task, so a batch wakes each loop once, not once
     * per connection; a callback called elsewhere (a failed batch, a refused task) still hops itself.
     */
    default @Nullable EventExecutor executor() {
      return null;
    }
  }
}
