package io.playline.gateway.session;

import io.playline.gateway.config.GatewayConfig;
import io.playline.gateway.stream.StreamTransport;
import io.playline.time.Time;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * How long an open connection and its resumable session live: the connection until its
 * credential's expiry plus {@code auth.expiry.grace} (then {@code onExpired} closes it with
 * TOKEN_EXPIRED), the stored session until its {@link StoredSession#notAfterMs deadline}. Keeps the
 * resume store's idle TTL fresh lazily (at most every {@code session.ttl}/3) and takes a refreshed
 * token's expiry. Confined to the connection's event loop, like its {@link StreamSession}.
 */
final class SessionLease {
  private final StreamTransport transport;
  private final ResumeStore resumeStore;
  private final Time time;
  private final GatewayConfig config;
  private final Runnable onExpired;
  private StoredSession terms;
  private long lastStoreRefreshMs;
  private @Nullable ScheduledFuture<?> expiryTimer;

  /**
   * Starts the lease of an authenticated connection: records a new session or extends the resumed
   * one, and arms the expiry check.
   */
  SessionLease(StreamTransport transport, ResumeStore resumeStore, Time time, GatewayConfig config, StoredSession terms,
      boolean newSession, Runnable onExpired) {
    this.transport = transport;
    this.resumeStore = resumeStore;
    this.time = time;
    this.config = config;
    this.terms = terms;
    this.onExpired = onExpired;
    long now = time.millis();
    if (newSession) {
      resumeStore.create(terms, now);
    } else {
      resumeStore.refresh(sessionId(), notAfterMs(), now);
    }
    lastStoreRefreshMs = now;
    scheduleExpiryCheck();
  }

  /** The credential's expiry as the wire carries it: epoch milliseconds, 0 = does not expire. */
  long wireExpiry() {
    return terms.tokenExpiresAtMs() == Principal.NEVER ? 0 : terms.tokenExpiresAtMs();
  }

  /** A frame arrived: extends the stored session's idle life, at most every {@code session.ttl}/3. */
  void touch() {
    long now = time.millis();
    if (now - lastStoreRefreshMs > config.sessionTtl().toMillis() / 3) {
      lastStoreRefreshMs = now;
      resumeStore.refresh(sessionId(), notAfterMs(), now);
    }
  }

  /** A Refresh verified a new token of the same user: the connection and the session expire with it. */
  void renewed(long tokenExpiresAtMs) {
    long now = time.millis();
    terms = new StoredSession(terms.identity(), tokenExpiresAtMs, terms.createdAtMs());
    resumeStore.renew(sessionId(), tokenExpiresAtMs, notAfterMs(), now);
    lastStoreRefreshMs = now;
    scheduleExpiryCheck();
  }

  /** The connection is gone: no expiry check any more. */
  void close() {
    if (expiryTimer != null) {
      expiryTimer.cancel(false);
      expiryTimer = null;
    }
  }

  /** Why the connection is being closed, once {@link #onExpired} runs (client-safe). */
  String expiredMessage() {
    return "token expired at " + Instant.ofEpochMilli(terms.tokenExpiresAtMs())
        + " without a refresh; reconnect with a fresh token";
  }

  private String sessionId() {
    return terms.identity().sessionId();
  }

  private long notAfterMs() {
    return terms.notAfterMs(config.sessionMaxAge().toMillis());
  }

  private void scheduleExpiryCheck() {
    close();
    long expiresAtMs = terms.tokenExpiresAtMs();
    if (expiresAtMs == Principal.NEVER) {
      return;
    }
    long graceMs = config.authExpiryGrace().toMillis();
    long closeAt = expiresAtMs > Long.MAX_VALUE - graceMs ? Long.MAX_VALUE : expiresAtMs + graceMs;
    long delayMs = Math.max(0, closeAt - time.millis());
    expiryTimer = time.schedule(transport.executor(), () -> {
      expiryTimer = null;
      if (time.millis() >= closeAt) {
        onExpired.run();
      } else {
        scheduleExpiryCheck(); // woke early (timer granularity): check again
      }
    }, delayMs, TimeUnit.MILLISECONDS);
  }
}
