package io.playline.client;

/**
 * Where a {@link AbstractPlaylineClient}'s connection is; reported to {@link
 * PlaylineListener#onStateChanged} on every change, in order.
 */
public enum ConnectionState {
  /** The first connection is being opened and authenticated. */
  CONNECTING,
  /** Authenticated: heartbeats flow and queries are answered. */
  CONNECTED,
  /** The connection was lost (or the server asked to move); waiting out the backoff or reconnecting. */
  RECONNECTING,
  /** Terminal: closed by {@link AbstractPlaylineClient#close()} (no cause) or given up after the last attempt (cause). */
  CLOSED
}
