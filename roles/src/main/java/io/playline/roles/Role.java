package io.playline.roles;

import java.util.Map;

/** A running role process (gateway, api or job): where it listens, and how it stops. */
public interface Role extends AutoCloseable {
  /** What it serves, by name ({@code websocket}, {@code grpc}, {@code api}, {@code admin}), as URIs or host:port. */
  Map<String, String> addresses();

  /** Stops every part in reverse start order (bounded); idempotent. */
  @Override
  void close();
}
