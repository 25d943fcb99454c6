package io.playline.node.errors;

import io.playline.proto.v1.Error;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.ServerFrame;

/** Builds the client-facing {@code Error} bodies; messages are safe for clients by construction. */
public final class Errors {
  /** WebSocket close codes for errors are this base plus the {@link Code} number. */
  public static final int WS_CLOSE_CODE_BASE = 4000;

  private Errors() {}

  public static Error of(Code code, String message) {
    return Error.newBuilder().setCode(code).setMessage(message).build();
  }

  public static ServerFrame frame(long seq, Error error) {
    return ServerFrame.newBuilder().setSeq(seq).setError(error).build();
  }

  public static int webSocketCloseCode(Code code) {
    return WS_CLOSE_CODE_BASE + code.getNumber();
  }
}
