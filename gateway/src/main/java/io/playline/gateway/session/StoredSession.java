package io.playline.gateway.session;

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
}
