package io.playline.client.internal;

import io.playline.client.PlaylineException;
import io.playline.proto.lite.v1.Error.Code;
import org.jspecify.annotations.Nullable;

/**
 * What a WebSocket close frame from the gateway means (docs/protocol.md): code {@code 4000 + n} carries
 * {@code Error.Code} n, in case no {@code Error} frame preceded it; any other code is a lost
 * connection. Shared by every WebSocket transport. Stateless.
 */
public final class CloseCodes {
  private static final int CLOSE_CODE_BASE = 4000;

  private CloseCodes() {}

  /** The failure a close frame with {@code status} and {@code reason} stands for. */
  public static PlaylineException closeCause(int status, @Nullable String reason) {
    String text = reason == null ? "" : reason;
    if (status > CLOSE_CODE_BASE && status < CLOSE_CODE_BASE + 1000) {
      Code code = Code.forNumber(status - CLOSE_CODE_BASE);
      return new PlaylineException(code == null ? Code.INTERNAL : code, text);
    }
    return new PlaylineException(Code.UNAVAILABLE, "connection closed by the gateway (" + status + " " + text + ")");
  }
}
