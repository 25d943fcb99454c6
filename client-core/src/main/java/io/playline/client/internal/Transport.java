package io.playline.client.internal;

import io.playline.proto.lite.v1.ClientFrame;
import io.playline.proto.lite.v1.ServerFrame;
import org.jspecify.annotations.Nullable;

/**
 * One way of carrying the player stream (WebSocket or gRPC): opens connections that exchange
 * {@code ClientFrame}s and {@code ServerFrame}s, nothing more. Auth, heartbeats, acks, resends and
 * queries live once, in {@link ClientSession}, above this interface.
 *
 * <p>{@link #open} and every {@link Connection} method are called on the client's loop, and every
 * {@link Listener} method is called on it, so a connection needs no locks. {@link #shutdown} is
 * called once, off the loop, when the client closes.
 */
public interface Transport {
  /** Frames and the end of one connection, delivered on the loop. */
  interface Listener {
    /** The connection is ready for frames (WebSocket handshake done; gRPC stream started). At most once. */
    void onOpen();

    /** One frame from the gateway, in the order sent. */
    void onFrame(ServerFrame frame);

    /**
     * The connection is gone, closed by either side or failed ({@code cause}, or null for an
     * orderly end). Exactly once per connection, also when it never opened; nothing follows.
     */
    void onClosed(@Nullable Throwable cause);
  }

  /** One open (or opening) connection. */
  interface Connection {
    /** Writes one frame; frames are delivered in order. Dropped silently once the connection is closing. */
    void send(ClientFrame frame);

    /** Whether the socket accepts more without queueing in memory. */
    boolean isWritable();

    /**
     * Ends the connection in an orderly way (WebSocket close frame; gRPC half-close), forcing it
     * after a short bound; {@link Listener#onClosed} follows. Idempotent.
     */
    void close();
  }

  /** Starts opening a connection; never throws: failures arrive as {@link Listener#onClosed}. */
  Connection open(Listener listener);

  /** Connections still holding a socket or channel (for leak checks). */
  int liveConnections();

  /**
   * Releases every resource still held (closing any connection left), waiting at most {@code
   * timeoutMs}. Called off the loop, before the loop itself is shut down.
   */
  void shutdown(long timeoutMs);
}
