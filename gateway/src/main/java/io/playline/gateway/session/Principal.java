package io.playline.gateway.session;

/** The identity a verified token carries. */
public record Principal(long uid) {
  public Principal {
    if (uid <= 0) {
      throw new IllegalArgumentException("uid: " + uid + " (expected: > 0)");
    }
  }
}
