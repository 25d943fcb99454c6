package io.playline.client;

import io.playline.proto.lite.v1.Error.Code;

/**
 * A request or the connection failed with a stable {@link Code}: either the gateway's {@code
 * Error} frame (its code and client-safe message), or a client-side condition mapped onto the
 * same codes ({@code UNAVAILABLE} when the connection was lost before an answer, no answer came
 * in time, or the client is closed). Immutable; thread-safe.
 */
public final class PlaylineException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final Code code;
  private final long retryAfterMs;

  /** A failure with {@code code}; an unknown code from a newer server is treated as {@code INTERNAL}. */
  public PlaylineException(Code code, String message) {
    this(code, message, 0);
  }

  /** As above, with the gateway's {@code retry_after_ms} (0 when it gave none). */
  public PlaylineException(Code code, String message, long retryAfterMs) {
    super(code + ": " + message);
    this.code = code == Code.UNRECOGNIZED || code == Code.CODE_UNSPECIFIED ? Code.INTERNAL : code;
    this.retryAfterMs = Math.max(0, retryAfterMs);
  }

  /**
   * For {@code RATE_LIMITED}: how long the gateway asked to wait before sending again, in
   * milliseconds (the client holds the refused events back that long and resends them itself); 0
   * when the error carries no wait.
   */
  public long retryAfterMs() {
    return retryAfterMs;
  }

  /** The stable code to switch on. */
  public Code code() {
    return code;
  }
}
