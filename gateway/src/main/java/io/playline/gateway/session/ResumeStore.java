package io.playline.gateway.session;

import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * Server-side sessions: session id to identity, with a TTL, so a reconnecting client can resume
 * with its {@code session_id} and skip the identity check. A session never outlives its {@link
 * StoredSession#notAfterMs deadline} (the newest token's expiry, and the maximum session age):
 * every TTL an implementation sets is capped by the deadline it is given. Implementations never
 * block the caller; stages may complete on other threads.
 */
public interface ResumeStore {
  /** Records a new session; failures are logged by the implementation (resume then falls back to a token). */
  void create(StoredSession session, long nowMs);

  /** The session with this id, or empty when it expired or never existed (callers still check its deadline). */
  CompletionStage<Optional<StoredSession>> find(String sessionId);

  /** Extends the session's idle life, never past {@code notAfterMs}; called lazily, not on every frame. */
  void refresh(String sessionId, long notAfterMs, long nowMs);

  /** A Refresh verified a new token: the session now expires with it, never past {@code notAfterMs}. */
  void renew(String sessionId, long tokenExpiresAtMs, long notAfterMs, long nowMs);
}
