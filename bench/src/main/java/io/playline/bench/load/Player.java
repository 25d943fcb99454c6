package io.playline.bench.load;

import io.playline.proto.v1.Auth;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.Heartbeat;
import io.playline.proto.v1.HistoryQuery;
import io.playline.proto.v1.ItemKey;
import io.playline.proto.v1.PlayEvent;
import io.playline.proto.v1.ProgressQuery;
import io.playline.time.Time;
import org.jspecify.annotations.Nullable;

/**
 * The protocol side of one simulated player: sends Auth once the transport is up, then heartbeats
 * when its pacer asks, matches acks to the heartbeats in flight (at most {@code window}) and
 * records latency from each heartbeat's intended send time, so a slow server cannot hide queueing
 * by slowing the generator down. Kept small: thousands live in one process.
 *
 * <p>Confined to its connection's event loop.
 */
final class Player {
  /** How the player reaches the server; implemented per transport. */
  interface Link {
    /** Queues (and flushes) one frame; false if the connection cannot take it now. */
    boolean send(ClientFrame frame);

    void close();
  }

  private static final int CONNECTING = 0;
  private static final int AUTHENTICATING = 1;
  private static final int OPEN = 2;
  private static final int CLOSED = 3;
  private static final long VIDEO_LENGTH_MS = 45 * 60_000L;

  final int index;
  private final Players owner;
  private @Nullable Link link;
  private int state = CONNECTING;
  private long seq;
  private @Nullable String flagDate;
  private final long[] inFlightSeq;
  private final long[] inFlightAt;
  private int inFlight;
  private int heartbeats;
  /** Set while {@link PageQueries#answered} works after an answer: no query goes out meanwhile. */
  private volatile boolean holding;

  Player(int index, Players owner, int window) {
    this.index = index;
    this.owner = owner;
    this.inFlightSeq = new long[window];
    this.inFlightAt = new long[window];
  }

  long uid() {
    return owner.spec().uidBase() + index;
  }

  boolean isOpen() {
    return state == OPEN;
  }

  /** The transport is up: authenticate. */
  void onConnected(Link l, String token) {
    link = l;
    state = AUTHENTICATING;
    flagDate = owner.initialFlag();
    Auth.Builder auth = Auth.newBuilder().setToken(token).setDeviceId("bench-" + index).setPlatform("bench");
    if (flagDate != null) {
      auth.setFlagDate(flagDate);
    }
    l.send(ClientFrame.newBuilder().setSeq(++seq).setAuth(auth).build());
  }

  /**
   * Sends one heartbeat intended for {@code intendedNanos}; false (and counted as skipped) when
   * this player is not open or already has {@code window} heartbeats unacked.
   */
  boolean heartbeat(long intendedNanos) {
    Link l = link;
    if (state != OPEN || l == null) {
      return false;
    }
    if (inFlight == inFlightSeq.length || holding) {
      owner.stats().skipped.increment();
      return false;
    }
    long s = ++seq;
    ClientFrame frame = switch (owner.spec().query()) {
      case NONE -> ClientFrame.newBuilder().setSeq(s).setHeartbeat(nextHeartbeat()).build();
      case PROGRESS -> ClientFrame.newBuilder().setSeq(s).setProgressQuery(PROGRESS_QUERY).build();
      case PAGE -> ClientFrame.newBuilder().setSeq(s)
          .setHistoryQuery(owner.queries() == null ? FIRST_PAGE : owner.queries().next(uid())).build();
    };
    if (!l.send(frame)) {
      owner.stats().skipped.increment();
      return false;
    }
    heartbeats++;
    inFlightSeq[inFlight] = s;
    inFlightAt[inFlight] = intendedNanos;
    inFlight++;
    owner.stats().sent.increment();
    return true;
  }

  /** The user's items oid 1..10 (video): a seeded user's ({@code bench reads}) first ten. */
  private static final ProgressQuery PROGRESS_QUERY = progressQuery();
  private static final HistoryQuery FIRST_PAGE = HistoryQuery.newBuilder().setLimit(20).build();

  private static ProgressQuery progressQuery() {
    ProgressQuery.Builder q = ProgressQuery.newBuilder();
    for (int oid = 1; oid <= 10; oid++) {
      q.addItems(ItemKey.newBuilder().setBusiness(Business.VIDEO).setOid(oid));
    }
    return q.build();
  }

  private Heartbeat nextHeartbeat() {
    Heartbeat.Builder hb = Heartbeat.newBuilder();
    int events = owner.spec().eventsPerHeartbeat();
    long now = Time.SYSTEM.millis();
    for (int e = 0; e < events; e++) {
      // One video per player and event slot; progress moves on 15 s per heartbeat, as a player's would.
      hb.addEvents(PlayEvent.newBuilder()
          .setBusiness(Business.VIDEO)
          .setOid(1 + (uid() * 7 + e) % 1_000_000)
          .setProgressMs((heartbeats * 15_000L) % VIDEO_LENGTH_MS)
          .setDurationMs(VIDEO_LENGTH_MS)
          .setEventTimeMs(now));
    }
    if (flagDate != null) {
      hb.setFlagDate(flagDate);
    }
    return hb.build();
  }

  /** One frame from the server, already decoded. */
  void onFrame(ServerFrames.View f) {
    if (f.flagDate != null && owner.spec().flagMode() == LoadSpec.FlagMode.LEARNED) {
      flagDate = f.flagDate;
    }
    switch (f.body) {
      case ServerFrames.AUTH_OK -> {
        if (state == AUTHENTICATING) {
          state = OPEN;
          owner.opened(this);
        }
      }
      case ServerFrames.HEARTBEAT_ACK -> {
        long at = retire(f.seq);
        if (at != Long.MIN_VALUE) {
          owner.stats().ack(Time.SYSTEM.nanoTime() - at);
        }
      }
      case ServerFrames.PROGRESS, ServerFrames.HISTORY_PAGE -> {
        long at = retire(f.seq);
        PageQueries queries = f.body == ServerFrames.HISTORY_PAGE ? owner.queries() : null;
        if (queries == null ? f.records == 0 : f.records != queries.expectedRecords()) {
          owner.stats().error(0); // a seeded user's query found nothing, or a short page: a wrong answer, not an ack
        } else if (at != Long.MIN_VALUE) {
          owner.stats().ack(Time.SYSTEM.nanoTime() - at);
        }
        if (queries != null) {
          answered(queries);
        }
      }
      case ServerFrames.ERROR -> {
        // An error answering Auth is followed by the server's close, which counts the failure.
        owner.stats().error(f.errorCode);
        boolean query = retire(f.seq) != Long.MIN_VALUE;
        PageQueries queries = owner.queries();
        if (query && queries != null && owner.spec().query() == LoadSpec.Query.PAGE) {
          answered(queries); // the server may have warmed the user before it failed
        }
      }
      default -> { }
    }
  }

  /** Holds this player's next query until {@link PageQueries#answered} is done with its last answer. */
  private void answered(PageQueries queries) {
    holding = true;
    try {
      queries.answered(uid()).whenComplete((v, error) -> holding = false);
    } catch (RuntimeException e) {
      holding = false;
      throw e;
    }
  }

  /** Removes {@code s} from the in-flight heartbeats; its intended time, or MIN_VALUE if unknown. */
  private long retire(long s) {
    for (int i = 0; i < inFlight; i++) {
      if (inFlightSeq[i] == s) {
        long at = inFlightAt[i];
        inFlight--;
        inFlightSeq[i] = inFlightSeq[inFlight];
        inFlightAt[i] = inFlightAt[inFlight];
        return at;
      }
    }
    return Long.MIN_VALUE;
  }

  /** The connection is gone; {@code code} is the server's close code, 0 when unknown or local. */
  void onClosed(int code) {
    if (state == CLOSED) {
      return;
    }
    boolean wasOpen = state == OPEN;
    state = CLOSED;
    link = null;
    owner.closed(this, wasOpen, code);
  }

  void close() {
    Link l = link;
    if (l != null) {
      l.close();
    }
  }
}
