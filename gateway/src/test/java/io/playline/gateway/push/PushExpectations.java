package io.playline.gateway.push;

import static io.playline.testing.Frames.heartbeat;
import static org.assertj.core.api.Assertions.assertThat;

import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.PlayEvent;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.WsPlayerClient;

/** What the push tests expect a player to read next: an ack, a sync, nothing. */
final class PushExpectations {
  private PushExpectations() {}

  /** Sends a heartbeat and expects its ack as the very next frame (so no sync came first). */
  static void heartbeatAcked(WsPlayerClient c, long seq, PlayEvent... events) throws InterruptedException {
    c.send(heartbeat(seq, events));
    expectAck(c, seq);
  }

  static void expectAck(WsPlayerClient c, long seq) throws InterruptedException {
    ServerFrame f = c.next();
    assertThat(f.hasHeartbeatAck()).as("heartbeat ack %s, got %s", seq, f).isTrue();
    assertThat(f.getSeq()).isEqualTo(seq);
  }

  /**
   * Proves that nothing (no sync in particular) is queued for {@code c}: a keep-alive's ack must be
   * the next frame. Call once whatever could have produced a frame is known to have happened.
   */
  static void expectNothingPending(WsPlayerClient c, long seq) throws InterruptedException {
    heartbeatAcked(c, seq);
  }

  /** The next frame, which must be a server-initiated ProgressSync; returns its record. */
  static HistoryRecord expectSync(WsPlayerClient c) throws InterruptedException {
    ServerFrame f = c.next();
    assertThat(f.hasSync()).as("progress sync, got %s", f).isTrue();
    assertThat(f.getSeq()).isZero();
    return f.getSync().getRecord();
  }
}
