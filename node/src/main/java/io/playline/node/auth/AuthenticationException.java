package io.playline.node.auth;

/** A token was rejected; the message is safe to send to the client and never contains the token. */
public final class AuthenticationException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public AuthenticationException(String message) {
    super(message, null, false, false);
  }
}
