package io.playline.gateway.session;

import io.playline.gateway.stream.ConnectionIdentity;
import io.playline.gateway.stream.StreamTransport;
import io.playline.node.auth.AuthenticationException;
import io.playline.node.errors.ClientLabels;
import io.playline.node.errors.Errors;
import io.playline.proto.v1.Auth;
import io.playline.proto.v1.Error.Code;
import io.playline.proto.v1.Error;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who is on a connection, from its {@code Auth} frame: the stored session it resumes (its {@code
 * session_id}, on the same device, within {@code session.max.age}), else its token, verified once per
 * connection; the answer is an {@link Outcome}. Answers that arrive once the connection stopped
 * waiting for them ({@code pending} false: closed, timed out) are dropped uncounted. Confined to the
 * connection's executor: asynchronous answers hop back onto it.
 */
final class SessionAuthentication {
  private static final Logger log = LoggerFactory.getLogger(SessionAuthentication.class);

  /** What an {@code Auth} frame proved. */
  sealed interface Outcome {}

  /** The player on the connection; {@code newSession} when a token proved it (a session is recorded). */
  record Proven(ConnectionIdentity identity, long tokenExpiresAtMs, long createdAtMs, boolean newSession)
      implements Outcome {}

  /** Not proven: answered with {@code error}, then closed. */
  record Refused(Error error) implements Outcome {}

  private final StreamTransport transport;
  private final SessionParts parts;
  private final BooleanSupplier pending;

  /** @param pending whether the connection still waits for the answer */
  SessionAuthentication(StreamTransport transport, SessionParts parts, BooleanSupplier pending) {
    this.transport = transport;
    this.parts = parts;
    this.pending = pending;
  }

  /** Checks {@code auth}; {@code then} gets the outcome on the connection's executor, at most once. */
  void check(Auth auth, Consumer<Outcome> then) {
    String labels = ClientLabels.authProblem(auth.getDeviceId(), auth.getPlatform(),
        parts.heartbeats().writes().maxDeviceIdBytes(), parts.heartbeats().writes().maxPlatformBytes());
    if (labels != null) {
      then.accept(refused(Code.INVALID_ARGUMENT, labels));
    } else if (!auth.getSessionId().isEmpty()) {
      parts.resumeStore().find(auth.getSessionId())
          .whenComplete((found, error) -> onLoop(() -> resume(auth, found, error, then)));
    } else if (auth.getToken().isEmpty()) {
      then.accept(refused(Code.UNAUTHENTICATED, "auth needs a token or a session_id"));
    } else {
      verifyToken(auth, then);
    }
  }

  private void resume(Auth auth, @Nullable Optional<StoredSession> found, @Nullable Throwable error,
      Consumer<Outcome> then) {
    if (!pending.getAsBoolean()) {
      return;
    }
    String refused = error != null || found == null ? null : StoredSession.resumeRefusal(found.orElse(null),
        auth.getDeviceId(), parts.time().millis(), parts.config().sessionMaxAge().toMillis());
    if (error == null && found != null && refused == null) {
      parts.metrics().sessionResumed();
      StoredSession session = found.orElseThrow();
      ConnectionIdentity stored = session.identity();
      then.accept(new Proven(new ConnectionIdentity(stored.uid(), stored.sessionId(), stored.deviceId(),
          auth.getPlatform().isEmpty() ? stored.platform() : auth.getPlatform()),
          session.tokenExpiresAtMs(), session.createdAtMs(), false));
    } else if (!auth.getToken().isEmpty()) {
      verifyToken(auth, then);
    } else if (error != null) {
      then.accept(refused(Code.UNAVAILABLE, "session store unavailable; retry later or send a token"));
    } else {
      then.accept(refused(Code.SESSION_EXPIRED, refused + "; authenticate with a token"));
    }
  }

  private void verifyToken(Auth auth, Consumer<Outcome> then) {
    verify(auth.getToken(), (principal, cause) -> {
      if (!pending.getAsBoolean()) {
        return;
      }
      if (cause instanceof AuthenticationException) {
        parts.metrics().authRejected();
        then.accept(refused(Code.UNAUTHENTICATED, cause.getMessage()));
      } else if (cause != null || principal == null) {
        log.warn("Identity check failed for {}: {}", transport.remoteAddress(), String.valueOf(cause));
        then.accept(refused(Code.UNAVAILABLE, "identity service unavailable; retry later"));
      } else {
        parts.metrics().authOk();
        then.accept(new Proven(new ConnectionIdentity(principal.uid(), UUID.randomUUID().toString(),
            auth.getDeviceId(), auth.getPlatform()), principal.expiresAtMs(), parts.time().millis(), true));
      }
    });
  }

  /**
   * Verifies {@code token} (one identity check); {@code then} gets the principal, or the failure
   * without its {@code CompletionException} wrapper, on the connection's executor.
   */
  void verify(String token, BiConsumer<@Nullable Principal, @Nullable Throwable> then) {
    parts.metrics().identityCheck();
    parts.tokens().authenticate(token)
        .whenComplete((principal, error) -> onLoop(() -> then.accept(principal, unwrap(error))));
  }

  private void onLoop(Runnable task) {
    if (transport.executor().inEventLoop()) {
      task.run();
    } else {
      transport.executor().execute(task);
    }
  }

  private static @Nullable Throwable unwrap(@Nullable Throwable error) {
    return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
  }

  private static Refused refused(Code code, String message) {
    return new Refused(Errors.of(code, message));
  }
}
