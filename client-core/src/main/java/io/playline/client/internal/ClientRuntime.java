package io.playline.client.internal;

/**
 * What a transport module runs a client on: the loop its state is confined to, and a {@link
 * Transport} to each gateway endpoint, all on that loop. Netty's runtime (client-sdk) puts both on
 * one event loop; OkHttp's (client-okhttp) has a one-thread {@link ExecutorLoop} and hops OkHttp's
 * callbacks onto it.
 *
 * <p>{@link #transport} is called while the client is built; {@link #shutdown} once, when it has
 * closed (or failed to build).
 */
public interface ClientRuntime {
  /** The client's loop. */
  Loop loop();

  /** A transport to one gateway node. */
  Transport transport(ClientConfig.Endpoint endpoint);

  /**
   * Releases what the runtime owns (its loop's threads, its HTTP client) after the transports were
   * shut down, waiting at most {@code timeoutMs}; 0 when called on the loop itself (do not wait).
   */
  void shutdown(long timeoutMs);
}
