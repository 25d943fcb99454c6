package io.playline.gateway.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.playline.gateway.heartbeat.EventWait;
import io.playline.gateway.push.RecordingTransport;
import io.playline.gateway.stream.ConnectionIdentity;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.ServerFrame;
import io.playline.testing.Frames;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link StreamSession} driven frame by frame without Redis or a socket ({@link SessionFixture}):
 * each message goes through the connection's decode step ({@link FrameDecoder}) as a transport
 * hands it over, timers run when the test moves the {@code ManualTime}.
 */
class StreamSessionTest {
  private static final long UID = 42;
  private final SessionFixture fixture = new SessionFixture();
  private final EmbeddedChannel channel = new EmbeddedChannel();
  private final RecordingTransport transport = new RecordingTransport(channel.eventLoop());
  private final EventWait wait = new EventWait(fixture.budgets::nanoTime);
  private final FrameDecoder decoder = new FrameDecoder(wait);
  private final StreamSession session = new StreamSession(transport, fixture.parts, wait);

  @AfterEach
  void close() {
    session.onTransportClosed();
    channel.finishAndReleaseAll();
  }

  private void receive(ClientFrame frame) {
    session.onFrame(decoder.decode(ByteBuffer.wrap(frame.toByteArray())));
  }

  private ServerFrame closedWith() {
    assertThat(transport.closedWith).as("the session closed the connection").isNotNull();
    return transport.closedWith;
  }

  private ServerFrame open() {
    session.start();
    receive(Frames.auth(1, fixture.token(UID)));
    assertThat(transport.sent).as("the answer to auth").hasSize(1);
    return transport.sent.get(0);
  }

  @Test
  void aTokenOpensTheConnectionAndRecordsASession() {
    ServerFrame ok = open();
    assertThat(ok.getSeq()).isEqualTo(1);
    assertThat(ok.getAuthOk().getUid()).isEqualTo(UID);
    assertThat(ok.getAuthOk().getHeartbeatIntervalMs())
        .isEqualTo((int) fixture.config.heartbeatInterval().toMillis());
    assertThat(fixture.stored).containsKey(ok.getAuthOk().getSessionId());
    assertThat(transport.authenticated).as("the transport learns the player authenticated").isTrue();
    assertThat(session.identity()).extracting(ConnectionIdentity::uid).isEqualTo(UID);
    assertThat(fixture.registry.get("playline.auth").tag("result", "ok").counter().count()).isEqualTo(1);
  }

  @Test
  void aStoredSessionIsResumedWithoutAnIdentityCheck() {
    String sessionId = open().getAuthOk().getSessionId();
    session.onTransportClosed();
    RecordingTransport again = new RecordingTransport(channel.eventLoop());
    StreamSession resumed = new StreamSession(again, fixture.parts, new EventWait(fixture.budgets::nanoTime));
    resumed.start();
    resumed.onFrame(new DecodedFrame.Frame(Frames.resume(3, sessionId, Frames.DEVICE)));
    assertThat(again.sent).singleElement().satisfies(f -> {
      assertThat(f.getSeq()).isEqualTo(3);
      assertThat(f.getAuthOk().getSessionId()).isEqualTo(sessionId);
    });
    assertThat(fixture.registry.get("playline.auth.identity.checks").counter().count()).as("the first auth's only")
        .isEqualTo(1);
    resumed.onTransportClosed();
  }

  @Test
  void theFirstFrameMustBeAuth() {
    session.start();
    receive(Frames.keepAlive(5));
    assertThat(closedWith().getSeq()).isEqualTo(5);
    assertThat(closedWith().getError().getCode()).isEqualTo(Code.UNAUTHENTICATED);
    assertThat(fixture.errors("UNAUTHENTICATED")).isEqualTo(1);
  }

  @Test
  void noAuthWithinTheAuthTimeoutCloses() {
    session.start();
    fixture.time.advance(fixture.config.authTimeout().minusMillis(1));
    channel.runPendingTasks();
    assertThat(transport.closedWith).isNull();
    fixture.time.advance(Duration.ofMillis(1));
    channel.runPendingTasks();
    assertThat(closedWith().getError().getCode()).isEqualTo(Code.AUTH_TIMEOUT);
  }

  @Test
  void anOpenConnectionWithoutFramesClosesAtTheIdleTimeout() {
    open();
    fixture.time.advance(fixture.config.idleTimeout().dividedBy(2));
    receive(Frames.keepAlive(2));
    fixture.time.advance(fixture.config.idleTimeout().dividedBy(2));
    channel.runPendingTasks();
    assertThat(transport.closedWith).as("a frame moved the idle deadline").isNull();
    fixture.time.advance(fixture.config.idleTimeout());
    channel.runPendingTasks();
    assertThat(closedWith().getError().getCode()).isEqualTo(Code.IDLE_TIMEOUT);
  }

  @Test
  void eventsSentWhileWaitingAreRefusedUndecoded() {
    open();
    while (fixture.budgets.takeEvents(UID, 1) == null) {
      // spend the user's burst
    }
    ClientFrame withEvents = Frames.heartbeat(2, Frames.event(7, 1_000, fixture.time.millis()));
    receive(withEvents);
    assertThat(transport.sent.get(1).getError().getCode()).as("over the budget").isEqualTo(Code.RATE_LIMITED);
    assertThat(wait.waiting()).isTrue();

    DecodedFrame decoded = decoder.decode(ByteBuffer.wrap(withEvents.toBuilder().setSeq(3).build().toByteArray()));
    assertThat(decoded).isEqualTo(new DecodedFrame.WaitedEvents(3));
    session.onFrame(decoded);
    ServerFrame refused = transport.sent.get(2);
    assertThat(refused.getSeq()).isEqualTo(3);
    assertThat(refused.getError().getCode()).isEqualTo(Code.RATE_LIMITED);
    assertThat(refused.getError().getRetryAfterMs()).isPositive();
    assertThat(fixture.registry.get("playline.frames.received").tag("type", "heartbeat").counter().count())
        .as("counted as the heartbeat it is").isEqualTo(2);

    receive(Frames.keepAlive(4));
    assertThat(transport.sent.get(3).hasHeartbeatAck()).as("a keep-alive is answered as usual").isTrue();
  }

  @Test
  void aBadFrameClosesWithItsCode() {
    open();
    session.onFrame(new DecodedFrame.Bad(Code.FRAME_TOO_LARGE, "frame larger than 1 bytes", false));
    assertThat(closedWith().getSeq()).isZero();
    assertThat(closedWith().getError().getCode()).isEqualTo(Code.FRAME_TOO_LARGE);
    assertThat(closedWith().getError().getMessage()).isEqualTo("frame larger than 1 bytes");
    assertThat(fixture.registry.get("playline.connections.open").gauge().value()).isZero();
  }
}
