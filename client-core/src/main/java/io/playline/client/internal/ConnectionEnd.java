package io.playline.client.internal;

import org.jspecify.annotations.Nullable;

/**
 * How one connection ends, told to its {@link Transport.Listener} exactly once: the first failure
 * remembered (a close code, a malformed frame) wins over how the socket then went away. Shared by
 * the WebSocket connections of every transport. Confined to the client's loop.
 */
public final class ConnectionEnd {
  private final Transport.Listener listener;
  private boolean ended;
  private @Nullable Throwable cause;

  public ConnectionEnd(Transport.Listener listener) {
    this.listener = listener;
  }

  /** Keeps {@code t} as the cause unless one was kept before. */
  public void remember(Throwable t) {
    if (cause == null) {
      cause = t;
    }
  }

  /** Whether the listener has heard the end. */
  public boolean ended() {
    return ended;
  }

  /** Tells the listener the connection is over (the remembered cause, else {@code t}); false if it was told already. */
  public boolean end(@Nullable Throwable t) {
    if (ended) {
      return false;
    }
    ended = true;
    listener.onClosed(cause != null ? cause : t);
    return true;
  }
}
