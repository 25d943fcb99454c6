package io.playline.client;

/**
 * The wires the behaviour suite runs every test over: the Netty SDK's WebSocket and gRPC ({@link
 * PlaylineClient}), and OkHttp's WebSocket ({@code OkHttpPlaylineClient}, the Android client).
 */
enum Wire {
  WEBSOCKET,
  GRPC,
  OKHTTP;

  /** Whether it connects to the gateway's gRPC port (else its WebSocket port). */
  boolean grpc() {
    return this == GRPC;
  }
}
