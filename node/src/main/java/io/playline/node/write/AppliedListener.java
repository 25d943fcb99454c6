package io.playline.node.write;

import io.playline.proto.v1.HistoryRecord;
import java.util.List;

/**
 * Told which records of a written heartbeat moved the stored progress (the write-through applied
 * them), e.g. to push them to the user's other devices.
 *
 * <p>Called on a Redis client thread, after the heartbeat's ack was handed to its connection;
 * implementations must not block and must be thread-safe.
 */
@FunctionalInterface
public interface AppliedListener {
  /** Ignores every record. */
  AppliedListener NONE = (uid, originSessionId, originDeviceId, applied) -> { };

  /**
   * @param uid the user
   * @param originSessionId the session of the connection that sent the heartbeat
   * @param originDeviceId that connection's device id (may be empty)
   * @param applied the records that moved the stored progress, in heartbeat order; never empty
   */
  void onApplied(long uid, String originSessionId, String originDeviceId, List<HistoryRecord> applied);
}
