package io.playline.gateway.session;

import io.playline.gateway.stream.ConnectionIdentity;
import org.jspecify.annotations.Nullable;

/**
 * A resumable server-side session.
 *
 * @param identity who, and the device the session is bound to
 * @param tokenExpiresAtMs expiry of the newest token verified for it ({@link Principal#NEVER} if none)
 * @param createdAtMs when the token that started it was verified (server clock)
 */
public record StoredSession(ConnectionIdentity identity, long tokenExpiresAtMs, long createdAtMs) {
  /** When the session stops being resumable: its token's expiry or its maximum age, whichever is first. */
  public long notAfterMs(long maxAgeMs) {
    long aged = createdAtMs > Long.MAX_VALUE - maxAgeMs ? Long.MAX_VALUE : createdAtMs + maxAgeMs;
    return Math.min(tokenExpiresAtMs, aged);
  }

  /**
   * Why {@code session} (null: not found) cannot be resumed at {@code nowMs} by a device named {@code
   * deviceId} (client-safe), or null when it can.
   */
  static @Nullable String resumeRefusal(@Nullable StoredSession session, String deviceId, long nowMs, long maxAgeMs) {
    if (session == null) {
      return "session expired or unknown";
    }
    if (nowMs >= session.notAfterMs(maxAgeMs)) {
      return "session expired (its token expired or it reached its maximum age)";
    }
    if (!session.identity().deviceId().equals(deviceId)) {
      return "session belongs to another device";
    }
    return null;
  }
}
