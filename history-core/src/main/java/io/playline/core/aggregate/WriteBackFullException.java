package io.playline.core.aggregate;

/**
 * The write-back holds writeback.max.pending.tombstones deletes and clears that Kafka has not acked
 * (Kafka is down or slow), so it refuses another rather than drop one. Transient: the caller fails
 * the request as unavailable and the client retries.
 */
public final class WriteBackFullException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public WriteBackFullException(String message) {
    super(message);
  }
}
