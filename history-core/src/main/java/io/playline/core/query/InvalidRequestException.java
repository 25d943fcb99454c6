package io.playline.core.query;

/**
 * A request to {@link HistoryService} was invalid; nothing was applied and retrying it unchanged
 * fails again. The message is safe to show a client (it names the field, the offending value and
 * what was expected, never internals), so transports map it to INVALID_ARGUMENT as is. Immutable.
 */
public final class InvalidRequestException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public InvalidRequestException(String clientSafeMessage) {
    super(clientSafeMessage, null, false, false);
  }
}
