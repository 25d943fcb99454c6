package io.playline.embedded;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * Picks TCP ports on 127.0.0.1 that were free a moment ago.
 *
 * <p>The port is released before the caller binds it, so another process may take it in
 * between; callers that own the choice retry on a bind failure.
 */
public final class FreePorts {

  private FreePorts() {}

  /** Returns one port that was free on 127.0.0.1 when this method ran. */
  public static int pick() throws IOException {
    return pick(1)[0];
  }

  /**
   * Returns {@code count} distinct ports that were free on 127.0.0.1 when this method ran.
   *
   * <p>All sockets stay bound until every port is picked, so the ports are distinct.
   */
  public static int[] pick(int count) throws IOException {
    if (count < 1) {
      throw new IllegalArgumentException("count: " + count + " (expected: >= 1)");
    }
    List<ServerSocket> sockets = new ArrayList<>(count);
    try {
      int[] ports = new int[count];
      for (int i = 0; i < count; i++) {
        ServerSocket socket = new ServerSocket();
        sockets.add(socket);
        socket.bind(new InetSocketAddress("127.0.0.1", 0));
        ports[i] = socket.getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket socket : sockets) {
        socket.close();
      }
    }
  }
}
