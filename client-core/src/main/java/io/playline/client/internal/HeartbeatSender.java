package io.playline.client.internal;

import io.playline.client.Ack;
import io.playline.client.AckedEvent;
import io.playline.client.FlagStore;
import io.playline.client.PlaylineException;
import io.playline.proto.lite.v1.ClientFrame;
import io.playline.proto.lite.v1.Error;
import io.playline.proto.lite.v1.Error.Code;
import io.playline.proto.lite.v1.Heartbeat;
import io.playline.proto.lite.v1.HeartbeatAck;
import io.playline.proto.lite.v1.PlayEvent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The heartbeat half of a session: turns the {@link EventBuffer} into {@code Heartbeat} frames
 * (each echoing the user's first-today date), applies acks and heartbeat errors, keeps the date in
 * the {@link FlagStore}, tells the caller once per date about {@code first_today}, and completes
 * flush futures once every event reported before the flush is acked. A {@code RATE_LIMITED}
 * heartbeat (the user's budget is spent) keeps its events queued and holds every event back until
 * its {@code retry_after_ms} has passed; then, until nothing waits, one heartbeat at a time, each
 * after the previous one's ack plus that same wait: the waiting events drain at about the budget's
 * pace instead of as a pipeline of refusals.
 *
 * <p>Confined to the client's loop.
 */
final class HeartbeatSender {
  private static final ClientLog log = ClientLog.of(HeartbeatSender.class);
  /** Frames per send, well under the gateway's default 20 frames/s; the rest go with the next one. */
  static final int MAX_FRAMES_PER_SEND = 8;
  /** The wait after a RATE_LIMITED without retry_after_ms (an older gateway). */
  static final long MIN_RATE_LIMITED_WAIT_MS = 1_000;

  /** A flush waiting until every event up to {@code version} is acked. */
  private static final class FlushWaiter {
    final long version;
    final CompletableFuture<Void> future;

    FlushWaiter(long version, CompletableFuture<Void> future) {
      this.version = version;
      this.future = future;
    }
  }

  private final EventBuffer buffer;
  private final int maxEventsPerHeartbeat;
  private final FlagStore flagStore;
  private final Callbacks callbacks;
  private final ClientCounters counters;
  private final ArrayDeque<FlushWaiter> flushes = new ArrayDeque<>();
  private long uid;
  private String flagDate = "";
  private String notifiedDay = "";
  /** No events are sent before this (loop time), the end of the last RATE_LIMITED's retry_after_ms. */
  private long holdUntilMs;
  /** Since a RATE_LIMITED, until nothing waits: one heartbeat with events at a time, paced. */
  private boolean paced;
  /** The last RATE_LIMITED's wait: the pace of heartbeats while {@link #paced}. */
  private long paceMs;

  HeartbeatSender(ClientConfig config, Callbacks callbacks, ClientCounters counters) {
    this.buffer = new EventBuffer(config.maxUnackedEvents());
    this.maxEventsPerHeartbeat = config.maxEventsPerHeartbeat();
    this.flagStore = config.flagStore();
    this.callbacks = callbacks;
    this.counters = counters;
  }

  /** Keeps the latest report per item; the oldest items beyond the bound are dropped and counted. */
  void report(PlayEvent event) {
    counters.eventsReported.incrementAndGet();
    int dropped = buffer.put(event);
    if (dropped > 0) {
      counters.eventsDropped.addAndGet(dropped);
      log.debug("Dropped {} unacked events beyond maxUnackedEvents", dropped);
      completeFlushes();
    }
  }

  /** The flag date to echo in Auth for {@code knownUid} (0 = not known yet: nothing to echo). */
  String flagForAuth(long knownUid) {
    if (knownUid == 0) {
      return "";
    }
    return knownUid == uid ? flagDate : load(knownUid);
  }

  /** A connection was authenticated as {@code uid}; {@code authOkFlagDate} may be empty. */
  void onAuthenticated(long uid, String authOkFlagDate) {
    if (uid != this.uid) {
      this.uid = uid;
      flagDate = load(uid);
      notifiedDay = "";
    }
    remember(authOkFlagDate);
  }

  /**
   * Sends every waiting event (at most {@value #MAX_FRAMES_PER_SEND} frames; none while a
   * RATE_LIMITED's wait runs, one at a time while paced), or an empty keep-alive when nothing was
   * sent and {@code keepAlive} is set.
   */
  void send(Transport.Connection conn, Seqs seqs, boolean keepAlive, long nowMs) {
    int maxFrames = nowMs < holdUntilMs ? 0 : paced ? (buffer.hasInFlight() ? 0 : 1) : MAX_FRAMES_PER_SEND;
    int frames = 0;
    while (buffer.hasWaiting() && frames < maxFrames) {
      long seq = seqs.next();
      conn.send(frame(seq, buffer.send(seq, maxEventsPerHeartbeat, nowMs)));
      frames++;
    }
    if (frames == 0 && keepAlive) {
      long seq = seqs.next();
      conn.send(frame(seq, buffer.send(seq, 0, nowMs)));
    }
  }

  private ClientFrame frame(long seq, List<PlayEvent> events) {
    return ClientFrame.newBuilder().setSeq(seq)
        .setHeartbeat(Heartbeat.newBuilder().addAllEvents(events).setFlagDate(flagDate))
        .build();
  }

  /** Whether {@code seq} is one of this session's heartbeats awaiting an answer. */
  boolean owns(long seq) {
    return buffer.isInFlight(seq);
  }

  /** Heartbeat {@code seq} was acked at {@code nowMs}: releases its events, keeps the date, tells the listeners. */
  void onAck(long seq, HeartbeatAck ack, long nowMs) {
    EventBuffer.Released released = buffer.ack(seq);
    if (released == null) {
      return;
    }
    counters.eventsAcked.addAndGet(released.released());
    if (paced && released.released() > 0) { // a keep-alive's ack says nothing about the budget
      paced = buffer.hasWaiting();
      holdUntilMs = paced ? nowMs + paceMs : holdUntilMs;
    }
    remember(ack.getFlagDate());
    List<AckedEvent> events = new ArrayList<>(released.events().size());
    for (int i = 0; i < released.events().size(); i++) {
      boolean firstView = i < ack.getFirstViewCount() && ack.getFirstView(i);
      events.add(new AckedEvent(released.events().get(i).event(), firstView));
    }
    callbacks.ack(new Ack(events, ack.getFlagDate(), ack.getFirstToday()));
    if (ack.getFirstToday() && !ack.getFlagDate().equals(notifiedDay)) {
      notifiedDay = ack.getFlagDate();
      callbacks.firstToday(ack.getFlagDate());
    }
    completeFlushes();
  }

  /**
   * Heartbeat {@code seq} was answered with {@code error} at {@code nowMs}: invalid events are
   * dropped (resending them cannot help), anything else waits to be resent; after RATE_LIMITED no
   * sooner than its retry_after_ms. False when {@code seq} is not a heartbeat.
   */
  boolean onError(long seq, Error error, long nowMs) {
    if (!buffer.isInFlight(seq)) {
      return false;
    }
    if (error.getCode() == Code.INVALID_ARGUMENT || error.getCode() == Code.FRAME_TOO_LARGE) {
      int dropped = buffer.reject(seq);
      counters.eventsDropped.addAndGet(dropped);
      log.warn("Gateway rejected a heartbeat ({} events dropped): {} {}", dropped, error.getCode(), error.getMessage());
    } else {
      counters.eventsResent.addAndGet(buffer.retry(seq));
      if (error.getCode() == Code.RATE_LIMITED) {
        paceMs = Math.max(error.getRetryAfterMs(), MIN_RATE_LIMITED_WAIT_MS);
        holdUntilMs = Math.max(holdUntilMs, nowMs + paceMs);
        paced = true;
      }
    }
    completeFlushes();
    return true;
  }

  /** How long events are still held back at {@code nowMs} by a RATE_LIMITED, 0 when they are not. */
  long holdMs(long nowMs) {
    return Math.max(0, holdUntilMs - nowMs);
  }

  /** The connection is gone: everything in flight waits to be resent on the next one. */
  void onConnectionLost() {
    counters.eventsResent.addAndGet(buffer.requeueAll());
  }

  /** Whether a heartbeat has waited longer than {@code timeoutMs} for its answer. */
  boolean stalled(long nowMs, long timeoutMs) {
    long oldest = buffer.oldestInFlightMs();
    return oldest != Long.MAX_VALUE && nowMs - oldest > timeoutMs;
  }

  /** Whether no heartbeat awaits an answer. */
  boolean idle() {
    return !buffer.hasInFlight();
  }

  /** Whether events wait to be sent. */
  boolean hasWaiting() {
    return buffer.hasWaiting();
  }

  /** Completes {@code future} once every event reported so far is acked (or dropped). */
  void whenFlushed(CompletableFuture<Void> future) {
    flushes.add(new FlushWaiter(buffer.lastVersion(), future));
    completeFlushes();
  }

  /** Fails every flush still waiting. */
  void failFlushes(PlaylineException error) {
    for (FlushWaiter w; (w = flushes.poll()) != null; ) {
      callbacks.fail(w.future, error);
    }
  }

  private void completeFlushes() {
    long oldest = buffer.oldestVersion();
    while (!flushes.isEmpty() && flushes.peek().version < oldest) {
      callbacks.complete(flushes.poll().future, null);
    }
  }

  private void remember(String date) {
    if (date.isEmpty() || date.equals(flagDate) || uid == 0) {
      return;
    }
    flagDate = date;
    try {
      flagStore.store(uid, date);
    } catch (RuntimeException e) {
      log.warn("Flag store failed to store the first-today date: {}", e.toString());
    }
  }

  private String load(long forUid) {
    try {
      return flagStore.load(forUid);
    } catch (RuntimeException e) {
      log.warn("Flag store failed to load the first-today date: {}", e.toString());
      return "";
    }
  }
}
