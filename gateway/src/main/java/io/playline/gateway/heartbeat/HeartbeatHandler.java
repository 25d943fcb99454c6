package io.playline.gateway.heartbeat;

import io.netty.util.concurrent.EventExecutor;
import io.playline.core.write.WriteOutcome;
import io.playline.gateway.budget.UserBudgets;
import io.playline.gateway.stream.ConnectionIdentity;
import io.playline.gateway.stream.StreamTransport;
import io.playline.node.errors.Errors;
import io.playline.node.write.EventRecords;
import io.playline.node.write.FlagCalendar;
import io.playline.node.write.PendingWrite;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.Heartbeat;
import io.playline.proto.v1.HistoryRecord;
import java.util.List;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * One authenticated connection's heartbeats: validates and clamps events, decides whether the
 * first-today flag needs Redis (not when the client echoes today's date, nor once this
 * connection was counted today), hands the heartbeat to its {@link WritePath} (the node's {@code
 * WriteBatcher}), and sends the {@code HeartbeatAck} once the batch is written. Events sent while
 * the retry_after_ms of this connection's last budget refusal runs ({@link EventWait}) are refused
 * first thing, before they are validated or the user's bucket is touched (when the decode step saw
 * the wait, undecoded: {@link #onWaitedEvents}); past {@code user.max.refusals.before.close} such
 * refusals in one wait the connection is closed RATE_LIMITED.
 *
 * <p>Confined to the connection's executor; batch results hop back onto it.
 */
public final class HeartbeatHandler {
  private final StreamTransport transport;
  private final HeartbeatPath path;
  private final ConnectionIdentity identity;
  private final UserBudgets.Account account;
  /** The transport's executor, which never changes: each heartbeat's answer is given there. */
  private final EventExecutor executor;
  private final BiConsumer<Long, io.playline.proto.v1.Error> closeWith;
  private final EventWait wait;
  private final Runnable active;
  private String countedDay = "";
  private int refusalsWhileWaiting;
  private boolean closed;

  /**
   * @param account the user's events budget on this node, which the connection holds while it is open
   * @param wait the connection's wait after an events refusal, which this step starts and the
   *     decode step reads
   * @param closeWith sends a last error (for the frame's seq) and closes the connection
   * @param active run on every heartbeat: the connection is active (push keeps its user's entry fresh)
   */
  public HeartbeatHandler(StreamTransport transport, HeartbeatPath path, ConnectionIdentity identity,
      UserBudgets.Account account, EventWait wait, BiConsumer<Long, io.playline.proto.v1.Error> closeWith,
      Runnable active) {
    this.transport = transport;
    this.executor = transport.executor();
    this.path = path;
    this.identity = identity;
    this.account = account;
    this.wait = wait;
    this.closeWith = closeWith;
    this.active = active;
  }

  /** Remembers that the user is known to be counted on {@code day} (e.g. the client echoed it in Auth). */
  public void markCounted(String day) {
    countedDay = day;
  }

  /**
   * A heartbeat whose events the decode step left undecoded because its {@link EventWait} ran:
   * refused as sent while waiting, whatever the time when it is taken.
   */
  public void onWaitedEvents(long seq) {
    long budgetNanos = path.budgets().nanoTime();
    active.run();
    refuseWhileWaiting(seq, budgetNanos);
  }

  public void onHeartbeat(long seq, Heartbeat heartbeat) {
    long budgetNanos = path.budgets().nanoTime();
    active.run();
    if (heartbeat.getEventsCount() > 0 && wait.waiting(budgetNanos)) {
      refuseWhileWaiting(seq, budgetNanos);
      return;
    }
    String problem = EventRecords.problem(heartbeat.getEventsList(), path.writes().maxEvents());
    if (problem != null) {
      reject(seq, problem);
      return;
    }
    long now = path.time().millis();
    FlagCalendar.Day day = path.calendar().dayOf(now);
    boolean known = day.iso().equals(heartbeat.getFlagDate()) || day.iso().equals(countedDay);
    if (heartbeat.getEventsCount() == 0) {
      // A keep-alive: nothing to record and nobody to count.
      transport.sendAck(seq, known ? day.iso() : "", false, null);
      return;
    }
    io.playline.proto.v1.Error refused = account.takeEvents(heartbeat.getEventsCount());
    if (refused != null) {
      wait.start(budgetNanos, refused.getRetryAfterMs());
      refusalsWhileWaiting = 0;
      transport.send(Errors.frame(seq, refused));
      return;
    }
    // On the write path's clock, as PendingWrite#receivedNanos must be: its latency metrics count from here.
    long received = path.writePath().nanoTime();
    List<HistoryRecord> records = EventRecords.build(identity.uid(), identity.deviceId(), identity.platform(),
        heartbeat.getEventsList(), now, path.eventRules());
    PendingWrite pending = new PendingWrite(identity.uid(), records, !known, identity.sessionId(),
        identity.deviceId(), identity.platform(), new Written(executor, seq, received), received);
    if (!path.writePath().submit(pending)) {
      transport.send(Errors.frame(seq, Errors.of(Code.UNAVAILABLE, "server busy; resend this heartbeat later")));
    }
  }

  /**
   * Heartbeat {@code seq}'s answer: the write path gives it on this connection's loop (with the batch's
   * other answers for that loop, in one task); given elsewhere (a failed batch), it hops there. It
   * holds the loop itself, so the write path, on its own thread, learns where to send the answer
   * without walking the connection's objects.
   */
  private final class Written implements PendingWrite.Callback {
    private final EventExecutor executor;
    private final long seq;
    private final long received;

    Written(EventExecutor executor, long seq, long received) {
      this.executor = executor;
      this.seq = seq;
      this.received = received;
    }

    @Override
    public EventExecutor executor() {
      return executor;
    }

    @Override
    public void done(@Nullable WriteOutcome outcome, boolean firstToday, FlagCalendar.Day countedOn,
        @Nullable Throwable error) {
      if (executor.inEventLoop()) {
        onWritten(seq, outcome, firstToday, countedOn, error, received);
      } else {
        executor.execute(() -> onWritten(seq, outcome, firstToday, countedOn, error, received));
      }
    }
  }

  private void refuseWhileWaiting(long seq, long now) {
    io.playline.proto.v1.Error refusal = path.budgets().refuseWaiting(wait.leftNanos(now));
    if (++refusalsWhileWaiting > path.maxRefusalsBeforeClose()) {
      path.budgets().closedForNotWaiting();
      closeWith.accept(seq, refusal);
      return;
    }
    transport.send(Errors.frame(seq, refusal));
  }

  private void onWritten(long seq, @Nullable WriteOutcome outcome, boolean firstToday, FlagCalendar.Day day,
      @Nullable Throwable error, long received) {
    if (closed) {
      return;
    }
    path.writePath().answered(received);
    if (error != null || outcome == null) {
      transport.send(Errors.frame(seq, Errors.of(Code.UNAVAILABLE, "could not record this heartbeat; resend it")));
      return;
    }
    countedDay = day.iso();
    transport.sendAck(seq, day.iso(), firstToday, outcome);
  }

  private void reject(long seq, String message) {
    transport.send(Errors.frame(seq, Errors.of(Code.INVALID_ARGUMENT, message)));
  }

  /** The connection is gone; late batch results are dropped. */
  public void close() {
    closed = true;
  }
}
