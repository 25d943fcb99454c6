package io.playline.roles;

/** Start-up cannot proceed for a reason the operator can fix; the message says which. */
public final class StartupException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public StartupException(String message) {
    super(message);
  }

  public StartupException(String message, Throwable cause) {
    super(message, cause);
  }
}
