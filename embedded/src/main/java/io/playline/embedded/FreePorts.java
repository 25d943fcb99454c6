package io.playline.embedded;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

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

  /**
   * Offset of a Redis Cluster node's bus port from its client port. Redis 6.2 cannot be told
   * another bus port ({@code cluster-port} is 7.0+), so both must be free.
   */
  public static final int CLUSTER_BUS_OFFSET = 10_000;

  // Below Linux's ephemeral range (32768..), so outgoing connections do not take them, and with
  // room for the bus port under it.
  private static final int CLUSTER_LOW = 12_000;
  private static final int CLUSTER_HIGH = 32_767 - CLUSTER_BUS_OFFSET;

  /**
   * Returns {@code count} distinct ports P, each with P + {@value #CLUSTER_BUS_OFFSET} (its
   * cluster bus port), all free on 127.0.0.1 when this method ran; below the ephemeral range.
   */
  public static int[] pickClusterPorts(int count) throws IOException {
    if (count < 1) {
      throw new IllegalArgumentException("count: " + count + " (expected: >= 1)");
    }
    List<ServerSocket> sockets = new ArrayList<>(2 * count);
    try {
      int[] ports = new int[count];
      int found = 0;
      for (int attempt = 0; found < count; attempt++) {
        if (attempt >= 100 * count) {
          throw new IOException("no " + count + " free port pairs P, P+" + CLUSTER_BUS_OFFSET + " in "
              + CLUSTER_LOW + ".." + CLUSTER_HIGH + " after " + attempt + " attempts");
        }
        int port = ThreadLocalRandom.current().nextInt(CLUSTER_LOW, CLUSTER_HIGH + 1);
        ServerSocket client = tryBind(port);
        ServerSocket bus = client == null ? null : tryBind(port + CLUSTER_BUS_OFFSET);
        if (client != null) {
          sockets.add(client);
        }
        if (bus != null) {
          sockets.add(bus);
          ports[found++] = port;
        }
      }
      return ports;
    } finally {
      for (ServerSocket socket : sockets) {
        socket.close();
      }
    }
  }

  private static @Nullable ServerSocket tryBind(int port) throws IOException {
    ServerSocket socket = new ServerSocket();
    try {
      socket.bind(new InetSocketAddress("127.0.0.1", port));
      return socket;
    } catch (IOException e) {
      socket.close();
      return null;
    }
  }
}
