package io.playline.gateway.session;

import io.playline.gateway.budget.AuthRefusalHold;
import io.playline.gateway.config.GatewayConfig;
import io.playline.gateway.heartbeat.EventWait;
import io.playline.gateway.heartbeat.HeartbeatHandler;
import io.playline.gateway.push.PushRegistrar;
import io.playline.gateway.stream.ConnectionIdentity;
import io.playline.gateway.stream.StreamTransport;
import io.playline.node.auth.AuthenticationException;
import io.playline.node.errors.Errors;
import io.playline.proto.v1.Auth;
import io.playline.proto.v1.AuthOk;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.Error;
import io.playline.proto.v1.Refresh;
import io.playline.proto.v1.RefreshOk;
import io.playline.proto.v1.ServerFrame;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport-neutral half of one player connection: the same protocol over WebSocket and gRPC.
 * Takes what the transport's decode step made of each message ({@link DecodedFrame}). Enforces
 * "auth first, within the auth timeout", has {@link SessionAuthentication} tell who is on the
 * connection, then dispatches frames for the authenticated user; enforces the per-connection frame rate ({@link FrameRate}), the idle timeout and the
 * credential's expiry (a {@code Refresh} with a token of the same user moves it; without one the
 * connection is closed with TOKEN_EXPIRED). A resumed session keeps the expiry of the newest token
 * it was given and is refused to another device and past {@code session.max.age}. What it stands on
 * are the narrow {@link SessionParts}: a test builds one with in-memory fakes of them.
 *
 * <p>Confined to {@link StreamTransport#executor()}: every method must be called on it, and
 * asynchronous completions hop back onto it.
 */
public final class StreamSession {
  private static final Logger log = LoggerFactory.getLogger(StreamSession.class);

  private enum State { AWAITING_AUTH, AUTHENTICATING, OPEN, CLOSED }

  private final ErrorCountingTransport transport;
  private final SessionParts parts;
  private final EventWait eventWait;
  private final SessionAuthentication authentication;
  private State state = State.AWAITING_AUTH;
  private @Nullable ScheduledFuture<?> timer;
  private long lastFrameNanos;
  private final FrameRate frameRate;
  private @Nullable ConnectionIdentity identity;
  private boolean counted;
  /** The uid counted against connection.max.per.user, or 0. */
  private long countedUser;
  private @Nullable SessionLease lease;
  private @Nullable HeartbeatHandler heartbeats;
  private @Nullable StreamQueries streamQueries;
  private PushRegistrar.@Nullable Handle pushRegistration;
  /** Holding the answer to an authentication over budget, until closed ({@link #refuseAuth}). */
  private @Nullable AuthRefusalHold heldRefusal;

  /**
   * @param eventWait the connection's wait after an events refusal: its heartbeat step starts it,
   *     its decode step ({@link FrameDecoder}) reads it
   */
  public StreamSession(StreamTransport transport, SessionParts parts, EventWait eventWait) {
    this.transport = new ErrorCountingTransport(transport, parts.metrics());
    this.parts = parts;
    this.eventWait = eventWait;
    this.frameRate = new FrameRate(parts.config().maxFramesPerSecond());
    this.authentication = new SessionAuthentication(this.transport, parts, () -> state == State.AUTHENTICATING);
  }

  /** Starts the auth timer; call once when the connection is established. */
  public void start() {
    parts.metrics().connectionOpened();
    counted = true;
    lastFrameNanos = parts.time().nanoTime();
    long authTimeoutMs = parts.config().authTimeout().toMillis();
    timer = parts.time().schedule(transport.executor(), () -> {
      if (state == State.AWAITING_AUTH || state == State.AUTHENTICATING) {
        fail(0, Code.AUTH_TIMEOUT, "no successful auth within " + authTimeoutMs + " ms");
      }
    }, authTimeoutMs, TimeUnit.MILLISECONDS);
  }

  /** The decode step's result for one message from the client. */
  public void onFrame(DecodedFrame decoded) {
    if (decoded instanceof DecodedFrame.Frame f) {
      onClientFrame(f.frame());
    } else if (decoded instanceof DecodedFrame.WaitedEvents w) {
      onWaitedEvents(w.seq());
    } else if (decoded instanceof DecodedFrame.Bad bad) {
      onBadFrame(bad.code(), bad.message());
    }
  }

  private void onClientFrame(ClientFrame frame) {
    if (!received(frame.getSeq(), frame.getBodyCase())) {
      return;
    }
    switch (state) {
      case AWAITING_AUTH -> {
        if (frame.getBodyCase() != ClientFrame.BodyCase.AUTH) {
          fail(frame.getSeq(), Code.UNAUTHENTICATED, "the first frame must be auth");
        } else {
          authenticate(frame.getSeq(), frame.getAuth());
        }
      }
      case AUTHENTICATING -> failAuthenticating(frame.getSeq());
      case OPEN -> dispatch(frame);
      case CLOSED -> { }
    }
  }

  /** A heartbeat with events, left undecoded while the connection waits. */
  private void onWaitedEvents(long seq) {
    if (!received(seq, ClientFrame.BodyCase.HEARTBEAT)) {
      return;
    }
    switch (state) {
      case AWAITING_AUTH -> fail(seq, Code.UNAUTHENTICATED, "the first frame must be auth");
      case AUTHENTICATING -> failAuthenticating(seq);
      case OPEN -> {
        touchLease();
        heartbeats().onWaitedEvents(seq);
      }
      case CLOSED -> { }
    }
  }

  /** Counts frame {@code seq} of {@code type} for the idle timeout and the frame rate; false: it goes no further. */
  private boolean received(long seq, ClientFrame.BodyCase type) {
    if (state == State.CLOSED) {
      return false;
    }
    lastFrameNanos = parts.time().nanoTime();
    parts.metrics().frame(type);
    FrameRate.Verdict rate = frameRate.count(lastFrameNanos);
    if (rate == FrameRate.Verdict.CLOSE) {
      fail(seq, Code.RATE_LIMITED, frameRate.message());
    } else if (rate == FrameRate.Verdict.REFUSE) {
      reject(seq, Code.RATE_LIMITED, frameRate.message());
    }
    return rate == FrameRate.Verdict.PASS;
  }

  private void failAuthenticating(long seq) {
    fail(seq, Code.PROTOCOL_VIOLATION, "wait for auth_ok before sending more frames");
  }

  /** The transport received something that is not a valid frame; {@code why} is client-safe. */
  public void onBadFrame(Code code, String why) {
    if (state != State.CLOSED) {
      fail(0, code, why);
    }
  }

  /** The connection is gone (either side closed it); releases timers. Idempotent. */
  public void onTransportClosed() {
    state = State.CLOSED;
    transport.closed();
    cancelTimer();
    if (heldRefusal != null) {
      heldRefusal.release();
      heldRefusal = null;
    }
    if (lease != null) {
      lease.close();
    }
    if (countedUser != 0) {
      parts.limits().release(countedUser);
      countedUser = 0;
    }
    if (heartbeats != null) {
      heartbeats.close();
    }
    if (pushRegistration != null) {
      pushRegistration.close();
      pushRegistration = null;
    }
    if (counted) {
      counted = false;
      parts.metrics().connectionClosed();
    }
  }

  /** True between an Auth and its answer: the credential is being checked. */
  public boolean authenticating() {
    return state == State.AUTHENTICATING;
  }

  /** The authenticated identity, or null before auth. */
  public @Nullable ConnectionIdentity identity() {
    return identity;
  }

  private void authenticate(long seq, Auth auth) {
    state = State.AUTHENTICATING;
    authentication.check(auth, outcome -> {
      if (outcome instanceof SessionAuthentication.Proven proven) {
        open(seq, auth, proven);
      } else if (outcome instanceof SessionAuthentication.Refused r) {
        fail(seq, r.error());
      }
    });
  }

  private void open(long seq, Auth auth, SessionAuthentication.Proven proven) {
    ConnectionIdentity id = proven.identity();
    Error overBudget = parts.limits().takeAuth(id.uid());
    if (overBudget != null) {
      refuseAuth(seq, overBudget);
      return;
    }
    UserLimits.Admission admission = parts.limits().admit(id.uid());
    if (!(admission instanceof UserLimits.Admitted admitted)) {
      fail(seq, Code.TOO_MANY_CONNECTIONS, ((UserLimits.Refused) admission).why());
      return;
    }
    countedUser = id.uid();
    identity = id;
    state = State.OPEN;
    transport.authenticated();
    cancelTimer();
    long now = parts.time().millis();
    SessionLease l = new SessionLease(transport, parts.resumeStore(), parts.time(), parts.config(),
        new StoredSession(id, proven.tokenExpiresAtMs(), proven.createdAtMs()), proven.newSession(), () -> {
          if (state == State.OPEN && lease != null) {
            fail(0, Code.TOKEN_EXPIRED, lease.expiredMessage());
          }
        });
    lease = l;
    PushRegistrar.Handle push = parts.push().register(id, transport);
    pushRegistration = push;
    heartbeats = new HeartbeatHandler(transport, parts.heartbeats(), id, admitted.account(), eventWait, this::fail,
        push::touch);
    String today = parts.heartbeats().calendar().dayOf(now).iso();
    boolean echoedToday = today.equals(auth.getFlagDate());
    if (echoedToday) {
      heartbeats.markCounted(today);
    }
    scheduleIdleCheck(parts.config().idleTimeout().toNanos());
    transport.send(ServerFrame.newBuilder().setSeq(seq).setAuthOk(AuthOk.newBuilder()
        .setUid(id.uid())
        .setSessionId(id.sessionId())
        .setHeartbeatIntervalMs((int) parts.config().heartbeatInterval().toMillis())
        .setServerTimeMs(now)
        .setFlagDate(echoedToday ? today : "")
        .setExpiresAtMs(l.wireExpiry()))
        .build());
  }

  private void refresh(long seq, Refresh refresh) {
    if (refresh.getToken().isEmpty()) {
      fail(seq, Code.UNAUTHENTICATED, "refresh needs a token");
      return;
    }
    authentication.verify(refresh.getToken(), (principal, cause) -> onRefreshVerified(seq, principal, cause));
  }

  private void onRefreshVerified(long seq, @Nullable Principal principal, @Nullable Throwable cause) {
    ConnectionIdentity id = identity;
    SessionLease l = lease;
    if (state != State.OPEN || id == null || l == null) {
      return;
    }
    if (cause instanceof AuthenticationException) {
      parts.metrics().refreshRejected();
      fail(seq, Code.UNAUTHENTICATED, "refresh refused: " + cause.getMessage());
      return;
    }
    if (cause != null || principal == null) {
      log.warn("Identity check of a refresh failed for {}: {}", transport.remoteAddress(), String.valueOf(cause));
      reject(seq, Code.UNAVAILABLE, "identity service unavailable; retry the refresh before the token expires");
      return;
    }
    if (principal.uid() != id.uid()) {
      parts.metrics().refreshRejected();
      fail(seq, Code.UNAUTHENTICATED, "refresh refused: the token is for another user");
      return;
    }
    parts.metrics().refreshed();
    l.renewed(principal.expiresAtMs());
    transport.send(ServerFrame.newBuilder().setSeq(seq)
        .setRefreshOk(RefreshOk.newBuilder().setExpiresAtMs(l.wireExpiry())).build());
  }

  private void dispatch(ClientFrame frame) {
    switch (frame.getBodyCase()) {
      case AUTH -> fail(frame.getSeq(), Code.PROTOCOL_VIOLATION, "already authenticated");
      case BODY_NOT_SET -> fail(frame.getSeq(), Code.UNSUPPORTED_FRAME, "frame has no body this server knows");
      case HEARTBEAT -> {
        touchLease();
        heartbeats().onHeartbeat(frame.getSeq(), frame.getHeartbeat());
      }
      case PROGRESS_QUERY -> queries(frame.getSeq()).ifPresent(q -> q.progress(frame.getSeq(), frame.getProgressQuery()));
      case HISTORY_QUERY -> queries(frame.getSeq()).ifPresent(q -> q.history(frame.getSeq(), frame.getHistoryQuery()));
      case DELETE -> queries(frame.getSeq()).ifPresent(q -> q.delete(frame.getSeq(), frame.getDelete()));
      case CLEAR -> queries(frame.getSeq()).ifPresent(q -> q.clear(frame.getSeq(), frame.getClear()));
      case REFRESH -> refresh(frame.getSeq(), frame.getRefresh());
      default -> reject(frame.getSeq(), Code.UNAVAILABLE,
          frame.getBodyCase().name().toLowerCase(java.util.Locale.ROOT) + " is not served by this build yet");
    }
  }

  private void scheduleIdleCheck(long delayNanos) {
    timer = parts.time().schedule(transport.executor(), () -> {
      if (state != State.OPEN) {
        return;
      }
      long idle = parts.time().nanoTime() - lastFrameNanos;
      long limit = parts.config().idleTimeout().toNanos();
      if (idle >= limit) {
        fail(0, Code.IDLE_TIMEOUT, "no frame for " + TimeUnit.NANOSECONDS.toMillis(idle) + " ms");
      } else {
        scheduleIdleCheck(limit - idle);
      }
    }, delayNanos, TimeUnit.NANOSECONDS);
  }

  private void cancelTimer() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  /** The connection's query handler, or empty (after answering UNAVAILABLE) on a node without queries. */
  private java.util.Optional<StreamQueries> queries(long seq) {
    if (streamQueries == null) {
      PlayerHistory history = parts.history();
      ConnectionIdentity id = identity;
      if (history == null || id == null) {
        reject(seq, Code.UNAVAILABLE, "history queries are not served by this node");
        return java.util.Optional.empty();
      }
      streamQueries = new StreamQueries(transport, history, id.uid(), parts.limits());
    }
    return java.util.Optional.of(streamQueries);
  }

  private void touchLease() {
    if (lease != null) {
      lease.touch();
    }
  }

  private HeartbeatHandler heartbeats() {
    HeartbeatHandler h = heartbeats;
    if (h == null) {
      throw new IllegalStateException("not open");
    }
    return h;
  }

  /** Answers one frame with an error and keeps the connection open. */
  private void reject(long seq, Code code, String message) {
    transport.send(Errors.frame(seq, Errors.of(code, message)));
  }

  /**
   * Answers an authentication over its user's budget with {@code refusal} and closes the connection,
   * after holding it as {@link AuthRefusalHold} says: a client reconnecting as soon as it is refused
   * is slowed to one attempt per hold. Until then the session stays authenticating (another frame
   * is a protocol violation) and the auth timeout no longer runs.
   */
  private void refuseAuth(long seq, Error refusal) {
    AuthRefusalHold hold = parts.limits().authRefusalHold();
    long holdNanos = hold.take(refusal);
    if (holdNanos == 0) {
      fail(seq, refusal);
      return;
    }
    heldRefusal = hold;
    cancelTimer();
    timer = parts.time().schedule(transport.executor(), () -> fail(seq, refusal), holdNanos, TimeUnit.NANOSECONDS);
  }

  /** Sends a last error and closes the connection. */
  private void fail(long seq, Code code, String message) {
    fail(seq, Errors.of(code, message));
  }

  private void fail(long seq, Error error) {
    if (state == State.CLOSED) {
      return;
    }
    log.debug("Closing {} with {}: {}", transport.remoteAddress(), error.getCode(), error.getMessage());
    transport.closeWithError(seq, error);
    onTransportClosed();
  }
}
