package io.playline.client;

import io.playline.proto.v1.Error.Code;

/**
 * A request or the connection failed with a stable {@link Code}: either the gateway's {@code
 * Error} frame (its code and client-safe message), or a client-side condition mapped onto the
 * same codes ({@code UNAVAILABLE} when the connection was lost before an answer, no answer came
 * in time, or the client is closed). Immutable; thread-safe.
 */
public final class PlaylineException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final Code code;

  /** A failure with {@code code}; an unknown code from a newer server is treated as {@code INTERNAL}. */
  public PlaylineException(Code code, String message) {
    super(code + ": " + message);
    this.code = code == Code.UNRECOGNIZED || code == Code.CODE_UNSPECIFIED ? Code.INTERNAL : code;
  }

  /** The stable code to switch on. */
  public Code code() {
    return code;
  }
}
