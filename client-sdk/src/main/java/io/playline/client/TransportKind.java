package io.playline.client;

/**
 * Which wire carries the player stream; both carry exactly the same frames (docs/protocol.md), so the
 * choice is about the network between the player and the gateway, not about features.
 */
public enum TransportKind {
  /** {@code ws://HOST:PORT/v1/stream}, one binary WebSocket message per frame (gateway port 8080 by default). */
  WEBSOCKET,
  /** {@code playline.v1.Gateway/Connect} bidirectional stream over HTTP/2 (gateway port 9090 by default). */
  GRPC
}
