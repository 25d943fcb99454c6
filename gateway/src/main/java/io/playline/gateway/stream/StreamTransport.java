package io.playline.gateway.stream;

import io.netty.util.concurrent.EventExecutor;
import io.playline.core.write.WriteOutcome;
import io.playline.proto.v1.Error;
import io.playline.proto.v1.ServerFrame;
import org.jspecify.annotations.Nullable;

/**
 * One transport's side of a player connection (a WebSocket channel or a gRPC stream), as seen by
 * the transport-neutral {@link StreamSession}. All methods are called on {@link #executor()}.
 */
public interface StreamTransport {
  /** The single thread the session is confined to. */
  EventExecutor executor();

  /** Writes one frame; frames written in order arrive in order. */
  void send(ServerFrame frame);

  /**
   * Writes heartbeat {@code seq}'s ack ({@link AckEncoding#frame}), in order with {@link #send}. A
   * transport that writes bytes writes {@link AckEncoding#write}'s, building no message.
   */
  default void sendAck(long seq, String flagDate, boolean firstToday, @Nullable WriteOutcome outcome) {
    send(AckEncoding.frame(seq, flagDate, firstToday, outcome));
  }

  /** Whether the peer is keeping up; when false the session stops producing optional frames. */
  boolean isWritable();

  /**
   * Sends {@code error} as a last frame (with {@code seq}) and closes the connection with the
   * transport's matching close code or status.
   */
  void closeWithError(long seq, Error error);

  /** The remote address as text, for logs. */
  String remoteAddress();

  /**
   * The session authenticated a player: the connection is a player's from now on (its probation, if
   * its address is on one, passed; cut for abuse, it is not charged to its address).
   */
  default void authenticated() {}
}
