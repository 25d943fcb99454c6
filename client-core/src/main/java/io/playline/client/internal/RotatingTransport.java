package io.playline.client.internal;

import io.playline.proto.lite.v1.ServerFrame;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Several gateway nodes behind one {@link Transport}: each connection goes to the current node,
 * and once it ends or fails the next one opens on the following node (round robin). A node that
 * died, drains ({@code Reconnect}) or refuses connections is thereby left for another; the
 * session, the unacked events and the first-today date live in {@link ClientSession} and carry
 * over. Used on the client's loop only, like every transport.
 */
public final class RotatingTransport implements Transport {
  private final List<Transport> nodes;
  private int next;

  public RotatingTransport(List<Transport> nodes) {
    Checks.checkArgument(!nodes.isEmpty(), "nodes: none (expected: at least one)");
    this.nodes = new ArrayList<>(nodes);
  }

  @Override
  public Connection open(Listener listener) {
    Transport node = nodes.get(next);
    return node.open(new Listener() {
      @Override
      public void onOpen() {
        listener.onOpen();
      }

      @Override
      public void onFrame(ServerFrame frame) {
        listener.onFrame(frame);
      }

      @Override
      public void onClosed(@Nullable Throwable cause) {
        next = (next + 1) % nodes.size();
        listener.onClosed(cause);
      }
    });
  }

  @Override
  public int liveConnections() {
    int live = 0;
    for (Transport node : nodes) {
      live += node.liveConnections();
    }
    return live;
  }

  @Override
  public void shutdown(long timeoutMs) {
    long deadline = SystemClock.nanoTime() + timeoutMs * 1_000_000L;
    for (Transport node : nodes) {
      node.shutdown(Math.max(0, (deadline - SystemClock.nanoTime()) / 1_000_000L));
    }
  }
}
