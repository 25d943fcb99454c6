package io.playline.client.internal;

import io.playline.client.PlaylineException;
import io.playline.proto.lite.v1.Error.Code;
import io.playline.proto.lite.v1.ServerFrame;
import org.jspecify.annotations.Nullable;

/**
 * Makes connection attempts: fetches a token first when the {@link Credentials} need one, opens
 * a {@link Transport} connection, and bounds the attempt (token, connect, handshake and auth) by
 * the connect timeout. Hands the session the connection's events, ignoring anything from a
 * connection or attempt it has moved past, and ends every attempt with exactly one {@link
 * Events#ended}.
 *
 * <p>Confined to the client's loop; the token supplier's completion hops back onto it.
 */
final class Connector {
  /** What the session hears about the current attempt and its connection, on the loop. */
  interface Events {
    /** The connection is ready for the Auth frame. */
    void opened(Transport.Connection conn);

    /** A frame from the gateway. */
    void frame(ServerFrame frame);

    /** The attempt or its connection is over, for {@code cause}; a new attempt may start. */
    void ended(Throwable cause);
  }

  private final ClientConfig config;
  private final Loop loop;
  private final Transport transport;
  private final Credentials credentials;
  private final ClientCounters counters;
  private final Events events;
  private int attemptId;
  private int connectionId;
  private Transport.@Nullable Connection conn;
  private Loop.@Nullable Scheduled timeout;
  private @Nullable Throwable closeCause;

  Connector(ClientConfig config, Loop loop, Transport transport, Credentials credentials, ClientCounters counters,
      Events events) {
    this.config = config;
    this.loop = loop;
    this.transport = transport;
    this.credentials = credentials;
    this.counters = counters;
    this.events = events;
  }

  /** The open (or opening) connection, or null between connections. */
  Transport.@Nullable Connection connection() {
    return conn;
  }

  /** Starts an attempt; it ends in {@link Events#opened} (then frames) or {@link Events#ended}. */
  void attempt() {
    int attempt = ++attemptId;
    closeCause = null;
    timeout = loop.schedule(() -> timedOut(attempt), config.connectTimeout().toMillis());
    if (!credentials.needsToken()) {
      open();
      return;
    }
    TokenFetch.fetch(config, loop, counters, (value, error) -> onToken(attempt, value, error));
  }

  private void onToken(int attempt, @Nullable String value, @Nullable Throwable error) {
    if (attempt != attemptId || conn != null) {
      return; // timed out or cancelled meanwhile
    }
    if (error != null || value == null || value.isEmpty()) {
      String why = error == null ? "an empty token" : error.toString();
      fail(new PlaylineException(Code.UNAUTHENTICATED, "token supplier failed: " + why));
      return;
    }
    credentials.tokenFetched(value);
    open();
  }

  private void open() {
    int id = ++connectionId;
    Transport.Connection c = transport.open(new Transport.Listener() { // ignores a connection once replaced
      @Override
      public void onOpen() {
        Transport.Connection current = conn;
        if (id == connectionId && current != null) {
          events.opened(current);
        }
      }

      @Override
      public void onFrame(ServerFrame frame) {
        if (id == connectionId) {
          events.frame(frame);
        }
      }

      @Override
      public void onClosed(@Nullable Throwable cause) {
        if (id == connectionId) {
          closed(cause);
        }
      }
    });
    if (id == connectionId) {
      conn = c;
    }
  }

  /** The attempt succeeded (AuthOk): the connect timeout no longer applies. */
  void authenticated() {
    cancelTimeout();
  }

  /** Closes the connection in order; {@link Events#ended} follows. False when there is none. */
  boolean close() {
    Transport.Connection c = conn;
    if (c == null) {
      return false;
    }
    c.close();
    return true;
  }

  /** Abandons an attempt that has no connection yet (awaiting a token); nothing follows. */
  void cancel() {
    attemptId++;
    cancelTimeout();
  }

  private void timedOut(int attempt) {
    if (attempt != attemptId) {
      return;
    }
    timeout = null;
    PlaylineException why = new PlaylineException(Code.UNAVAILABLE,
        "not connected within " + config.connectTimeout().toMillis() + " ms");
    Transport.Connection c = conn;
    if (c != null) {
      closeCause = why;
      c.close();
    } else {
      fail(why);
    }
  }

  private void closed(@Nullable Throwable cause) {
    conn = null;
    connectionId++; // nothing more from this connection counts
    Throwable why = closeCause != null ? closeCause
        : cause != null ? cause : new PlaylineException(Code.UNAVAILABLE, "connection closed by the gateway");
    fail(why);
  }

  private void fail(Throwable why) {
    attemptId++;
    closeCause = null;
    cancelTimeout();
    events.ended(why);
  }

  private void cancelTimeout() {
    if (timeout != null) {
      timeout.cancel();
      timeout = null;
    }
  }
}
