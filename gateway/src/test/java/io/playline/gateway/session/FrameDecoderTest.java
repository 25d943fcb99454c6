package io.playline.gateway.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.playline.gateway.heartbeat.EventWait;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.Error.Code;
import io.playline.testing.Frames;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The decode step's typed results, on an {@link EventWait} the test makes run or not. */
class FrameDecoderTest {
  private static final ClientFrame WITH_EVENTS = Frames.heartbeat(9, Frames.event(7, 1_000, 0));

  private static ByteBuffer bytes(ClientFrame frame) {
    return ByteBuffer.wrap(frame.toByteArray());
  }

  /** A decoder whose connection waits when {@code waiting}. */
  private static FrameDecoder decoder(boolean waiting) {
    AtomicLong now = new AtomicLong(1_000);
    EventWait wait = new EventWait(now::get);
    if (waiting) {
      now.addAndGet(-1); // the wait started at 1000 ends after now
    }
    return new FrameDecoder(wait);
  }

  @Test
  void aFrameIsDecodedInFull() {
    assertThat(decoder(false).decode(bytes(WITH_EVENTS))).isEqualTo(new DecodedFrame.Frame(WITH_EVENTS));
    ClientFrame auth = Frames.auth(1, "t");
    assertThat(decoder(true).decode(bytes(auth))).as("only heartbeats with events wait").isEqualTo(new DecodedFrame.Frame(auth));
    ClientFrame keepAlive = Frames.keepAlive(2);
    assertThat(decoder(true).decode(bytes(keepAlive))).isEqualTo(new DecodedFrame.Frame(keepAlive));
  }

  @Test
  void eventsSentWhileWaitingComeBackAsTheirSeqAlone() {
    assertThat(decoder(true).decode(bytes(WITH_EVENTS))).isEqualTo(new DecodedFrame.WaitedEvents(9));
  }

  @Test
  void bytesThatAreNoClientFrameAreAProtocolViolation() {
    ByteBuffer garbage = ByteBuffer.wrap(new byte[] {0x1a, 0x7f, 0x0a});
    assertThat(decoder(false).decode(garbage))
        .isEqualTo(new DecodedFrame.Bad(Code.PROTOCOL_VIOLATION, FrameDecoder.MALFORMED, true));
    assertThat(garbage.position()).as("the message is left as it was").isZero();
  }
}
