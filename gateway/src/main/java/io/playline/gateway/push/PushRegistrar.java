package io.playline.gateway.push;

import io.playline.gateway.stream.ConnectionIdentity;
import io.playline.gateway.stream.StreamTransport;

/**
 * What a connection needs of progress push: to be reachable by its user's pushes while it is open,
 * and to keep its user's entry fresh while it is active. {@link ConnectionRegistry} in production.
 * Thread-safe.
 */
public interface PushRegistrar {
  /**
   * Makes an authenticated connection reachable by pushes for its user until the returned handle is
   * closed. Call on the connection's executor, once, when it is authenticated.
   */
  Handle register(ConnectionIdentity identity, StreamTransport transport);

  /** One registered connection. */
  interface Handle extends AutoCloseable {
    /**
     * The connection is active (it sent a heartbeat): its user's entry is refreshed when due. Call on
     * the connection's executor; when nothing is due it reads one field, no map.
     */
    void touch();

    /** Unregisters the connection. Call on the connection's executor; idempotent. */
    @Override
    void close();
  }
}
