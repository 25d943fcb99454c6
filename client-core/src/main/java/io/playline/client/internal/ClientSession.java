package io.playline.client.internal;

import io.playline.client.ConnectionState;
import io.playline.client.PlaylineException;
import io.playline.proto.lite.v1.AuthOk;
import io.playline.proto.lite.v1.ClientFrame;
import io.playline.proto.lite.v1.Error.Code;
import io.playline.proto.lite.v1.PlayEvent;
import io.playline.proto.lite.v1.Reconnect;
import io.playline.proto.lite.v1.ServerFrame;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The transport-neutral player session, written once for both transports: opens a connection,
 * authenticates (resuming the server-side session with {@code session_id} when it has one, with a
 * fresh token only when it cannot), refreshes the token before it expires, heartbeats at the gateway's interval, applies acks, resends
 * what a lost connection left unacked, answers queries, follows {@code Reconnect} and reconnects
 * with full-jitter backoff until {@code maxAttempts} consecutive attempts failed.
 *
 * <p>Confined to its {@link Loop}: every method must be called on it, and completions from other
 * threads (the token supplier) hop back onto it. {@link #state()} alone may be read anywhere.
 */
public final class ClientSession {
  private static final ClientLog log = ClientLog.of(ClientSession.class);
  /** How long a {@code Reconnect} waits for in-flight answers before closing, at least and at most. */
  static final long MIN_DRAIN_WAIT_MS = 1_000;
  static final long MAX_DRAIN_WAIT_MS = 5_000;

  private enum Phase { NEW, CONNECTING, AUTHENTICATING, CONNECTED, DRAINING, WAITING, CLOSING, CLOSED }

  private final ClientConfig config;
  private final Loop loop;
  private final Connector connector;
  private final ReconnectPolicy reconnects;
  private final Credentials credentials;
  private final Callbacks callbacks;
  private final ClientCounters counters;
  private final Seqs seqs = new Seqs();
  private final HeartbeatSender heartbeats;
  private final HeartbeatCadence cadence;
  private final RequestTracker requests;
  private final TokenRefresher refresher;
  private final CompletableFuture<Void> terminated = new CompletableFuture<>();
  private volatile ConnectionState state = ConnectionState.CONNECTING;
  private @Nullable ConnectionState announced;
  private Phase phase = Phase.NEW;
  private long authSeq;
  private Loop.@Nullable Scheduled timer;
  private @Nullable Throwable lastCause;

  public ClientSession(ClientConfig config, Loop loop, Transport transport, ClientCounters counters) {
    this.config = config;
    this.loop = loop;
    this.reconnects = new ReconnectPolicy(config.backoff(), config.maxAttempts(), loop);
    this.credentials = new Credentials(config.deviceId(), config.platform());
    this.connector = new Connector(config, loop, transport, credentials, counters, new Connector.Events() {
      @Override
      public void opened(Transport.Connection conn) {
        ClientSession.this.opened(conn);
      }

      @Override
      public void frame(ServerFrame frame) {
        ClientSession.this.frame(frame);
      }

      @Override
      public void ended(Throwable cause) {
        ClientSession.this.ended(cause);
      }
    });
    this.counters = counters;
    this.callbacks = new Callbacks(config.listeners(), config.callbackExecutor());
    this.heartbeats = new HeartbeatSender(config, callbacks, counters);
    this.cadence = new HeartbeatCadence(loop, config.connectTimeout().toMillis(), this::tick);
    this.requests = new RequestTracker(loop, seqs, callbacks, config.requestTimeout().toMillis());
    this.refresher = new TokenRefresher(config, loop, seqs, counters);
  }

  /** The public state; readable from any thread. */
  public ConnectionState state() {
    return state;
  }

  /** Whether no heartbeat awaits an answer on the current connection; on the loop only. */
  public boolean heartbeatsAnswered() {
    return heartbeats.idle();
  }

  /** Completes (on the loop) once the session is {@link ConnectionState#CLOSED}. */
  public CompletableFuture<Void> terminated() {
    return terminated;
  }

  /** Starts the first connection attempt. */
  public void start() {
    if (phase == Phase.NEW) {
      announce(ConnectionState.CONNECTING, null);
      connect();
    }
  }

  /** Buffers {@code event} for the next heartbeat (ignored once closed). */
  public void report(PlayEvent event) {
    if (phase != Phase.CLOSED) {
      heartbeats.report(event);
    }
  }

  /** Sends waiting events now when connected; {@code done} completes once everything reported so far is acked. */
  public void flush(CompletableFuture<Void> done) {
    if (phase == Phase.CLOSED) {
      callbacks.fail(done, new PlaylineException(Code.UNAVAILABLE, "client closed"));
      return;
    }
    Transport.Connection c = connector.connection();
    if (phase == Phase.CONNECTED && c != null) {
      heartbeats.send(c, seqs, false, loop.nowMs());
    }
    heartbeats.whenFlushed(done);
  }

  /** Sends a query now, or when connected; {@code answer} reads the expected answer kind. */
  public <T> void request(ClientFrame.Builder frame, ServerFrame.BodyCase answerKind,
      Function<ServerFrame, T> answer, CompletableFuture<T> result) {
    if (phase == Phase.CLOSED || phase == Phase.CLOSING) {
      callbacks.fail(result, new PlaylineException(Code.UNAVAILABLE, "client closed"));
      return;
    }
    requests.submit(frame, RequestTracker.expect(answerKind, answer), result,
        phase == Phase.CONNECTED ? connector.connection() : null);
  }

  /**
   * The device's network changed: a connection on the old network may be dead without either side
   * knowing for a while, and a reconnect waiting out its backoff waits for nothing. Drops the
   * connection (unacked events are resent on the next one, which resumes the session) or the wait,
   * and reconnects at once with a fresh backoff. Ignored while draining, closing or closed, and
   * while an attempt still waits for its token.
   */
  public void networkChanged() {
    if (phase == Phase.WAITING) {
      cancelTimers();
      reconnects.reset();
      connect();
    } else if (phase == Phase.CONNECTING || phase == Phase.AUTHENTICATING || phase == Phase.CONNECTED) {
      if (connector.connection() != null) {
        reconnects.reset();
        reconnects.retryAtOnce();
        lastCause = new PlaylineException(Code.UNAVAILABLE, "the network changed");
        connector.close();
      }
    }
  }

  /**
   * Starts closing: sends what waits, waits (at most the close timeout) for the acks and answers,
   * then closes the connection; {@link #terminated()} completes when done.
   */
  public void close() {
    Phase was = phase;
    if (was == Phase.CLOSED || was == Phase.CLOSING) {
      return;
    }
    phase = Phase.CLOSING;
    cancelTimers();
    if (connector.connection() == null) {
      connector.cancel();
      terminate(null);
    } else if (was == Phase.CONNECTED || was == Phase.DRAINING) {
      timer = loop.schedule(connector::close, config.closeTimeout().toMillis());
      answered();
    } else {
      connector.close();
    }
  }

  // Connecting and authenticating

  private void connect() {
    phase = Phase.CONNECTING;
    connector.attempt();
  }

  private void opened(Transport.Connection c) {
    if (phase != Phase.CONNECTING) {
      return;
    }
    phase = Phase.AUTHENTICATING;
    authSeq = seqs.next();
    c.send(ClientFrame.newBuilder().setSeq(authSeq)
        .setAuth(credentials.auth(heartbeats.flagForAuth(credentials.uid()))).build());
  }

  private void authenticated(AuthOk ok) {
    connector.authenticated();
    phase = Phase.CONNECTED;
    reconnects.connected();
    boolean resumed = credentials.authenticated(ok);
    counters.connections.incrementAndGet();
    if (resumed) {
      counters.sessionResumes.incrementAndGet();
    }
    cadence.announced(ok.getHeartbeatIntervalMs());
    heartbeats.onAuthenticated(ok.getUid(), ok.getFlagDate());
    log.debug("Playline session {} as uid {} (resumed: {}), heartbeat every {} ms", credentials.shortSessionId(),
        ok.getUid(), resumed, cadence.intervalMs());
    announce(ConnectionState.CONNECTED, null);
    Transport.Connection c = connector.connection();
    if (c != null) {
      refresher.onAuthenticated(c, ok);
      requests.sendQueued(c);
      heartbeats.send(c, seqs, false, loop.nowMs()); // whatever the last connection left unacked
    }
    cadence.schedule();
  }

  private void authRejected(PlaylineException error) {
    lastCause = error;
    callbacks.error(error);
    if (credentials.rejected(error)) {
      reconnects.retryAtOnce(); // the session is gone: straight back with a fresh token
    }
    connector.close();
  }

  // Frames

  private void frame(ServerFrame f) {
    switch (f.getBodyCase()) {
      case AUTH_OK:
        if (phase == Phase.AUTHENTICATING && f.getSeq() == authSeq) {
          authenticated(f.getAuthOk());
        }
        break;
      case HEARTBEAT_ACK:
        heartbeats.onAck(f.getSeq(), f.getHeartbeatAck(), loop.nowMs());
        answered();
        break;
      case PROGRESS:
      case HISTORY_PAGE:
      case DONE:
        requests.onAnswer(f);
        answered();
        break;
      case REFRESH_OK:
        refresher.onRefreshOk(f.getSeq(), f.getRefreshOk());
        break;
      case ERROR:
        onError(f);
        break;
      case SYNC:
        callbacks.sync(f.getSync().getRecord());
        break;
      case RECONNECT:
        reconnectRequested(f.getReconnect());
        break;
      default:
        log.debug("Ignoring a frame this SDK does not know: {}", f.getBodyCase());
    }
  }

  private void onError(ServerFrame f) {
    PlaylineException error = new PlaylineException(f.getError().getCode(), f.getError().getMessage(),
        f.getError().getRetryAfterMs());
    long seq = f.getSeq();
    if (phase == Phase.AUTHENTICATING && seq == authSeq) {
      authRejected(error);
    } else if (refresher.onError(seq, f.getError())) {
      callbacks.error(error);
      if (error.code() != Code.UNAVAILABLE) {
        credentials.forgetSession(); // the gateway refused the token and closes: reconnect with a fresh one
      }
    } else if (seq != 0 && heartbeats.onError(seq, f.getError(), loop.nowMs())) {
      callbacks.error(error);
      answered();
    } else if (seq != 0 && requests.onAnswer(f)) {
      answered();
    } else {
      if (error.code() == Code.TOKEN_EXPIRED) {
        credentials.forgetSession(); // the session expired with the token
      }
      lastCause = error; // not tied to a frame: the gateway closes the connection next
      callbacks.error(error);
    }
  }

  /** After an answer: a draining or closing connection closes once nothing awaits an answer. */
  private void answered() {
    Transport.Connection c = connector.connection();
    if (c == null || (phase != Phase.DRAINING && phase != Phase.CLOSING)) {
      return;
    }
    if (phase == Phase.CLOSING && heartbeats.hasWaiting()) {
      heartbeats.send(c, seqs, false, loop.nowMs());
    }
    if (heartbeats.idle() && requests.idle()) {
      c.close();
    }
  }

  private void reconnectRequested(Reconnect r) {
    if (phase != Phase.CONNECTED) {
      return;
    }
    long afterMs = Math.max(0, r.getAfterMs());
    log.info("Gateway asked to reconnect in {} ms ({})", afterMs, r.getReason());
    phase = Phase.DRAINING;
    cancelTimers();
    reconnects.reconnectAfter(afterMs);
    lastCause = new PlaylineException(Code.DRAINING, "gateway asked to reconnect: " + r.getReason());
    timer = loop.schedule(connector::close, Math.min(MAX_DRAIN_WAIT_MS, Math.max(MIN_DRAIN_WAIT_MS, afterMs)));
    answered();
  }

  // Heartbeat cadence

  private void tick() {
    Transport.Connection c = connector.connection();
    if (phase != Phase.CONNECTED || c == null) {
      return;
    }
    long now = loop.nowMs();
    long ackTimeoutMs = cadence.ackTimeoutMs();
    if (heartbeats.stalled(now, ackTimeoutMs)) {
      lastCause = new PlaylineException(Code.UNAVAILABLE, "no answer to a heartbeat within " + ackTimeoutMs + " ms");
      c.close();
      return;
    }
    if (c.isWritable()) {
      heartbeats.send(c, seqs, true, now);
    }
    cadence.schedule();
  }

  // Losing and ending connections

  private void ended(Throwable cause) {
    cancelTimers();
    refresher.stop();
    Phase was = phase;
    heartbeats.onConnectionLost();
    requests.onConnectionLost();
    if (was == Phase.CLOSING) {
      terminate(null);
      return;
    }
    Throwable why = lastCause != null ? lastCause : cause;
    lastCause = null;
    long delay = reconnects.nextDelayMs(was == Phase.CONNECTED || was == Phase.DRAINING);
    if (delay != ReconnectPolicy.GIVE_UP) {
      delay = Math.max(delay, heartbeats.holdMs(loop.nowMs())); // closed RATE_LIMITED: no sooner than told
    }
    if (delay == ReconnectPolicy.GIVE_UP) {
      log.warn("Giving up after {} failed connection attempts: {}", reconnects.failures(), why.toString());
      terminate(why);
      return;
    }
    phase = Phase.WAITING;
    log.info("Playline connection lost ({}); reconnecting in {} ms", why.toString(), delay);
    announce(ConnectionState.RECONNECTING, why);
    timer = loop.schedule(this::connect, delay);
  }

  private void terminate(@Nullable Throwable cause) {
    phase = Phase.CLOSED;
    cancelTimers();
    refresher.stop();
    PlaylineException error = new PlaylineException(Code.UNAVAILABLE,
        cause == null ? "client closed" : "gave up reconnecting: " + cause);
    requests.failAll(error);
    heartbeats.failFlushes(error);
    announce(ConnectionState.CLOSED, cause);
    terminated.complete(null);
  }

  private void announce(ConnectionState next, @Nullable Throwable cause) {
    state = next;
    if (next != announced) {
      announced = next;
      callbacks.stateChanged(next, cause);
    }
  }

  private void cancelTimers() {
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
    cadence.cancel();
  }
}
