package io.playline.client.internal;

import io.playline.proto.lite.v1.AuthOk;
import io.playline.proto.lite.v1.ClientFrame;
import io.playline.proto.lite.v1.Error;
import io.playline.proto.lite.v1.Error.Code;
import io.playline.proto.lite.v1.Refresh;
import io.playline.proto.lite.v1.RefreshOk;
import org.jspecify.annotations.Nullable;

/**
 * Keeps an authenticated connection's credential fresh: at a random point between 75 % and 90 %
 * of the time left before {@code expires_at_ms} (so many clients of one login service do not all
 * ask at once), fetches a token from the supplier and sends {@code Refresh}; each {@code
 * RefreshOk} schedules the next one. A supplier failure or an UNAVAILABLE answer is retried
 * sooner (a quarter of the time left, 100 ms to 5 s). Time left is measured on the gateway's clock:
 * {@code server_time_ms} of the AuthOk plus the local monotonic time since, so a wrong device clock
 * does not matter.
 *
 * <p>Confined to the client's loop; the supplier's completion hops back onto it.
 */
final class TokenRefresher {
  private static final ClientLog log = ClientLog.of(TokenRefresher.class);
  static final double EARLIEST = 0.75;
  static final double LATEST = 0.90;
  static final long MIN_RETRY_MS = 100;
  static final long MAX_RETRY_MS = 5_000;

  private final ClientConfig config;
  private final Loop loop;
  private final Seqs seqs;
  private final ClientCounters counters;
  private Transport.@Nullable Connection conn;
  private long serverBaseMs;
  private long localBaseMs;
  /** Server-clock expiry of the connection's credential; 0 = does not expire. */
  private long expiresAtMs;
  private long pendingSeq;
  private int generation;
  private Loop.@Nullable Scheduled timer;

  TokenRefresher(ClientConfig config, Loop loop, Seqs seqs, ClientCounters counters) {
    this.config = config;
    this.loop = loop;
    this.seqs = seqs;
    this.counters = counters;
  }

  /** A connection was authenticated: refresh its credential before {@code ok.expires_at_ms}. */
  void onAuthenticated(Transport.Connection c, AuthOk ok) {
    stop();
    conn = c;
    serverBaseMs = ok.getServerTimeMs();
    localBaseMs = loop.nowMs();
    expiresAtMs = ok.getExpiresAtMs();
    schedule(EARLIEST + (LATEST - EARLIEST) * config.random().getAsDouble());
  }

  /** Whether {@code seq} answers the pending Refresh; if so the next one is scheduled. */
  boolean onRefreshOk(long seq, RefreshOk ok) {
    if (seq == 0 || seq != pendingSeq) {
      return false;
    }
    pendingSeq = 0;
    counters.tokenRefreshes.incrementAndGet();
    expiresAtMs = ok.getExpiresAtMs();
    schedule(EARLIEST + (LATEST - EARLIEST) * config.random().getAsDouble());
    return true;
  }

  /**
   * Whether this error answers the pending Refresh. UNAVAILABLE is retried; any other code (the
   * token was refused) closes the connection on the gateway's side, so nothing more is tried here.
   */
  boolean onError(long seq, Error error) {
    if (seq == 0 || seq != pendingSeq) {
      return false;
    }
    pendingSeq = 0;
    if (error.getCode() == Code.UNAVAILABLE) {
      retry();
    }
    return true;
  }

  /** The connection is over (or the client closing): forget it and cancel what was planned. */
  void stop() {
    generation++;
    conn = null;
    pendingSeq = 0;
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
  }

  private long serverNowMs() {
    return serverBaseMs + (loop.nowMs() - localBaseMs);
  }

  private void schedule(double fractionOfTimeLeft) {
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
    if (expiresAtMs <= 0) {
      return;
    }
    long left = Math.max(0, expiresAtMs - serverNowMs());
    timer = loop.schedule(this::refreshNow, (long) (left * fractionOfTimeLeft));
  }

  private void retry() {
    long left = Math.max(0, expiresAtMs - serverNowMs());
    timer = loop.schedule(this::refreshNow, Math.max(MIN_RETRY_MS, Math.min(MAX_RETRY_MS, left / 4)));
  }

  private void refreshNow() {
    timer = null;
    if (conn == null) {
      return;
    }
    int gen = generation;
    TokenFetch.fetch(config, loop, counters, (token, error) -> onToken(gen, token, error));
  }

  private void onToken(int gen, @Nullable String token, @Nullable Throwable error) {
    Transport.Connection c = conn;
    if (gen != generation || c == null) {
      return;
    }
    if (error != null || token == null || token.isEmpty()) {
      log.warn("Token supplier failed while refreshing ({}); retrying", error == null ? "an empty token" : error);
      retry();
      return;
    }
    pendingSeq = seqs.next();
    c.send(ClientFrame.newBuilder().setSeq(pendingSeq).setRefresh(Refresh.newBuilder().setToken(token)).build());
  }
}
