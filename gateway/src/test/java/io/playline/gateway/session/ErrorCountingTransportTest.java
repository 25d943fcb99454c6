package io.playline.gateway.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import io.playline.core.write.WriteOutcome;
import io.playline.gateway.push.RecordingTransport;
import io.playline.gateway.stream.AckEncoding;
import io.playline.node.errors.Errors;
import io.playline.proto.v1.Error.Code;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What the session sends goes through the counting transport: errors counted, acks handed on as acks. */
class ErrorCountingTransportTest {
  private final EmbeddedChannel channel = new EmbeddedChannel();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final RecordingTransport recording = new RecordingTransport(channel.eventLoop());
  private final ErrorCountingTransport transport = new ErrorCountingTransport(recording, new GatewayMetrics(registry));

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  private double errors(Code code) {
    return registry.get("playline.errors").tag("code", code.name()).counter().count();
  }

  @Test
  void anAckReachesTheTransportsAckPathAndCountsNothing() {
    WriteOutcome outcome = new WriteOutcome(false, new byte[] {WriteOutcome.CREATED});
    transport.sendAck(4, "2026-12-07", true, outcome);
    assertThat(recording.acks).as("written by the transport's own ack path, not as a message").isEqualTo(1);
    assertThat(recording.sent).containsExactly(AckEncoding.frame(4, "2026-12-07", true, outcome));
    assertThat(registry.find("playline.errors").counters()).allSatisfy(c -> assertThat(c.count()).isZero());
  }

  @Test
  void anErrorFrameIsCountedByItsCode() {
    transport.send(Errors.frame(5, Errors.of(Code.RATE_LIMITED, "slow down")));
    assertThat(errors(Code.RATE_LIMITED)).isEqualTo(1);
    assertThat(recording.acks).isZero();
  }
}
