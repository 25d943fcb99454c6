package io.playline.gateway.session;

import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.Error.Code;

/**
 * One message from a player as the decode step hands it to its {@link StreamSession}: a decoded
 * {@code ClientFrame}, a heartbeat whose events were left undecoded, or a message the session
 * cannot take (answered with its code, then closed). Made by {@link FrameDecoder} for both
 * transports, and by the WebSocket steps before it (a refused connection, a refused ping).
 */
public sealed interface DecodedFrame {
  /** A {@code ClientFrame}, decoded in full. */
  record Frame(ClientFrame frame) implements DecodedFrame {}

  /**
   * A heartbeat with events sent while its connection waits out an events refusal ({@code
   * heartbeat.EventWait}): only its seq was read, and the heartbeat step refuses it as sent while
   * waiting.
   */
  record WaitedEvents(long seq) implements DecodedFrame {}

  /**
   * Not a frame: the session answers {@code code} with the client-safe {@code message} and closes
   * the connection. {@code abuse} says the client broke the protocol (malformed bytes, a ping flood),
   * which a transport may charge to the connection's address; a refusal for any other reason (too
   * large, not yet authenticated, over a cap) is not.
   */
  record Bad(Code code, String message, boolean abuse) implements DecodedFrame {}
}
