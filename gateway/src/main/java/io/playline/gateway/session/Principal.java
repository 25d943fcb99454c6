package io.playline.gateway.session;

/**
 * The identity a verified token carries.
 *
 * @param uid the user
 * @param expiresAtMs when the token expires (its {@code exp}, epoch milliseconds); {@link
 *     #NEVER} when the verifier gives no expiry. A connection lives past it only with a {@code
 *     Refresh}.
 */
public record Principal(long uid, long expiresAtMs) {
  /** {@link #expiresAtMs} of a credential that does not expire. */
  public static final long NEVER = Long.MAX_VALUE;

  public Principal {
    if (uid <= 0) {
      throw new IllegalArgumentException("uid: " + uid + " (expected: > 0)");
    }
    if (expiresAtMs <= 0) {
      throw new IllegalArgumentException("expiresAtMs: " + expiresAtMs + " (expected: > 0, or NEVER)");
    }
  }

  /** A principal whose credential does not expire (e.g. from a verifier that gives no expiry). */
  public Principal(long uid) {
    this(uid, NEVER);
  }
}
