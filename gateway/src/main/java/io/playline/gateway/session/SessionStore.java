package io.playline.gateway.session;

import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * Server-side sessions: session id to identity, with a TTL, so a reconnecting client can resume
 * with its {@code session_id} and skip the identity check. Implementations never block the caller;
 * stages may complete on other threads.
 */
public interface SessionStore {
  /** Records a new session; failures are logged by the implementation (resume then falls back to a token). */
  void create(ConnectionIdentity identity);

  /** The live session with this id, or empty when it expired or never existed. */
  CompletionStage<Optional<ConnectionIdentity>> find(String sessionId);

  /** Extends the session's life; called lazily, not on every frame. */
  void refresh(String sessionId);
}
