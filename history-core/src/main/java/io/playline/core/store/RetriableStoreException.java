package io.playline.core.store;

/**
 * A store (Redis, HBase, Kafka) failed in a way that may pass: a timeout, a lost connection, a
 * server that is starting, moving regions or shedding load. The same operation may be retried
 * unchanged after a back-off; nothing about the data is wrong. Retry logic asks for this type
 * instead of parsing messages; any other exception from a store means retrying will not help.
 *
 * <p>Immutable; safe to throw from any thread.
 */
public class RetriableStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** {@code message} says what was attempted (e.g. "HBase batch of 120 mutations"); {@code cause} why it failed. */
  public RetriableStoreException(String message, Throwable cause) {
    super(message, cause);
  }

  public RetriableStoreException(String message) {
    super(message);
  }
}
