package io.playline.core.query;

/**
 * A request to {@link HistoryService} was refused for now and nothing was applied: retrying it
 * after {@link #retryAfterMs()} can succeed. Thrown when a delete would push a user past {@code
 * history.tombstones.max.per.user} while the user's tombstones are too young to evict safely. The
 * message is safe to show a client; transports map it to {@code RATE_LIMITED} (gRPC {@code
 * RESOURCE_EXHAUSTED}) with the retry time. Immutable.
 */
public final class RateLimitedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final long retryAfterMs;

  public RateLimitedException(String clientSafeMessage, long retryAfterMs) {
    super(clientSafeMessage, null, false, false);
    this.retryAfterMs = retryAfterMs;
  }

  /** Milliseconds after which the same request can succeed (at least 1). */
  public long retryAfterMs() {
    return retryAfterMs;
  }
}
