package io.playline.gateway.session;

import com.google.protobuf.InvalidProtocolBufferException;
import io.playline.gateway.heartbeat.EventWait;
import io.playline.gateway.heartbeat.HeartbeatPeek;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.Error.Code;
import java.nio.ByteBuffer;

/**
 * The decode step of one player connection, on either transport: turns one encoded message into a
 * {@link DecodedFrame}. While the connection's {@link EventWait} runs, a heartbeat with events comes
 * back as {@link DecodedFrame.WaitedEvents} from its seq alone ({@link HeartbeatPeek}), without an
 * object per event; bytes that are no {@code ClientFrame} come back as a {@link DecodedFrame.Bad}
 * {@code PROTOCOL_VIOLATION}. Confined to the connection's executor.
 */
public final class FrameDecoder {
  static final String MALFORMED = "malformed frame: not a protobuf ClientFrame";

  private final EventWait wait;

  public FrameDecoder(EventWait wait) {
    this.wait = wait;
  }

  /** Decodes {@code message}, one encoded {@code ClientFrame}; its position is left as it was. */
  public DecodedFrame decode(ByteBuffer message) {
    if (wait.waiting()) {
      long seq = HeartbeatPeek.seqOfHeartbeatWithEvents(message.duplicate());
      if (seq >= 0) {
        return new DecodedFrame.WaitedEvents(seq);
      }
    }
    try {
      return new DecodedFrame.Frame(ClientFrame.parseFrom(message.duplicate()));
    } catch (InvalidProtocolBufferException e) {
      return new DecodedFrame.Bad(Code.PROTOCOL_VIOLATION, MALFORMED, true);
    }
  }
}
