package io.playline.gateway.heartbeat;

import io.netty.util.concurrent.EventExecutor;
import io.playline.core.write.WriteOutcome;
import io.playline.gateway.session.ConnectionIdentity;
import io.playline.gateway.session.Errors;
import io.playline.gateway.session.SessionServices;
import io.playline.gateway.session.StreamTransport;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.Heartbeat;
import io.playline.proto.v1.HeartbeatAck;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ServerFrame;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One authenticated connection's heartbeats: validates and clamps events, decides whether the
 * first-today flag needs Redis (not when the client echoes today's date, nor once this
 * connection was counted today), hands the heartbeat to the {@link HeartbeatBatcher}, and sends
 * the {@code HeartbeatAck} once the batch is written.
 *
 * <p>Confined to the connection's executor; batch results hop back onto it.
 */
public final class HeartbeatHandler {
  private final StreamTransport transport;
  private final SessionServices services;
  private final ConnectionIdentity identity;
  private String countedDay = "";
  private boolean closed;

  public HeartbeatHandler(StreamTransport transport, SessionServices services, ConnectionIdentity identity) {
    this.transport = transport;
    this.services = services;
    this.identity = identity;
  }

  /** Remembers that the user is known to be counted on {@code day} (e.g. the client echoed it in Auth). */
  public void markCounted(String day) {
    countedDay = day;
  }

  public void onHeartbeat(long seq, Heartbeat heartbeat) {
    long received = System.nanoTime();
    services.connections().touch(identity.uid());
    String problem = EventRecords.problem(heartbeat.getEventsList(), services.config().maxEventsPerHeartbeat());
    if (problem != null) {
      reject(seq, problem);
      return;
    }
    long now = services.clock().millis();
    FlagCalendar.Day day = services.calendar().dayOf(now);
    boolean known = day.iso().equals(heartbeat.getFlagDate()) || day.iso().equals(countedDay);
    if (heartbeat.getEventsCount() == 0) {
      // A keep-alive: nothing to record and nobody to count.
      transport.send(ack(seq, known ? day.iso() : "", false, null));
      return;
    }
    io.playline.proto.v1.Error refused = services.budgets().takeEvents(identity.uid(), heartbeat.getEventsCount());
    if (refused != null) {
      services.metrics().error(Code.RATE_LIMITED);
      transport.send(Errors.frame(seq, refused));
      return;
    }
    if (known) {
      services.batcher().metrics().echoSkip();
    }
    List<HistoryRecord> records = EventRecords.build(identity.uid(), identity.deviceId(), identity.platform(),
        heartbeat.getEventsList(), now, services.eventRules());
    PendingHeartbeat pending = new PendingHeartbeat(identity.uid(), records, !known, identity.sessionId(),
        identity.deviceId(), identity.platform(), (outcome, firstToday, countedOn, error) -> {
          EventExecutor executor = transport.executor();
          if (executor.inEventLoop()) {
            // The connection shares the batcher's loop (io.redis.shared): ack at once.
            onWritten(seq, outcome, firstToday, countedOn, error, received);
          } else {
            executor.execute(() -> onWritten(seq, outcome, firstToday, countedOn, error, received));
          }
        }, received);
    if (!services.batcher().submit(pending)) {
      services.metrics().error(Code.UNAVAILABLE);
      transport.send(Errors.frame(seq, Errors.of(Code.UNAVAILABLE, "server busy; resend this heartbeat later")));
    }
  }

  private void onWritten(long seq, @Nullable WriteOutcome outcome, boolean firstToday, FlagCalendar.Day day,
      @Nullable Throwable error, long received) {
    if (closed) {
      return;
    }
    services.batcher().metrics().answered(received);
    if (error != null || outcome == null) {
      services.metrics().error(Code.UNAVAILABLE);
      transport.send(Errors.frame(seq, Errors.of(Code.UNAVAILABLE, "could not record this heartbeat; resend it")));
      return;
    }
    countedDay = day.iso();
    transport.send(ack(seq, day.iso(), firstToday, outcome));
  }

  private static ServerFrame ack(long seq, String flagDate, boolean firstToday, @Nullable WriteOutcome outcome) {
    HeartbeatAck.Builder ack = HeartbeatAck.newBuilder().setFlagDate(flagDate).setFirstToday(firstToday);
    if (outcome != null) {
      for (int i = 0; i < outcome.codes().length; i++) {
        ack.addFirstView(outcome.firstView(i));
      }
    }
    return ServerFrame.newBuilder().setSeq(seq).setHeartbeatAck(ack).build();
  }

  private void reject(long seq, String message) {
    services.metrics().error(Code.INVALID_ARGUMENT);
    transport.send(Errors.frame(seq, Errors.of(Code.INVALID_ARGUMENT, message)));
  }

  /** The connection is gone; late batch results are dropped. */
  public void close() {
    closed = true;
  }
}
