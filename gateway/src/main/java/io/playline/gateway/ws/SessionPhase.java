package io.playline.gateway.ws;

/** Where a WebSocket connection's session stands, for the steps in front of it ({@link PingBudget}). */
enum SessionPhase {
  /** No session yet (before the upgrade), or the connection is closing: the client's frames no longer count. */
  NONE,
  /** Waiting for the Auth frame. */
  AWAITING_AUTH,
  /** Between an Auth frame and its answer. */
  AUTHENTICATING,
  /** A player authenticated. */
  OPEN
}
